import { eq, inArray } from 'drizzle-orm';
import type { Database } from '@/db';
import { type DatabaseHandle, openDatabase } from '@/db/client';
import { proposals, users } from '@/db/schema';
import { type DemoSystems, startDemoSystems } from '@/demo/harness';
import { seedDemo } from '@/demo/seed';
import { type AgentPrincipal, authenticateAgent } from '@/lib/agents/authenticate';
import { decide } from '@/lib/decisions/decide';

export type Tenant = 'acme' | 'globex';
export const TENANTS: readonly Tenant[] = ['acme', 'globex'];

/** The approver who settles a tenant's leftover proposals between corpus files (docs/design.md §13). */
const SETTLER: Record<Tenant, string> = { acme: 'alice@acme.test', globex: 'erin@globex.test' };

export const INTAKE_URL = 'http://countersign.test/api/v1/proposals';

/**
 * The seeded demo world the corpus, its tests and the property tests run against: a migrated
 * database (fresh in-memory PGlite unless one is given), the demo seed, the demo systems of
 * record on a free loopback port, and the seeded agents' plaintext keys.
 */
export type CorpusWorld = {
  db: Database;
  systems: DemoSystems;
  keys: Record<Tenant, string>;
  /** The principal authenticateAgent derives from the tenant's seeded key. */
  agent(tenant: Tenant): Promise<AgentPrincipal>;
  /**
   * Rejects (as the tenant's approver, through the real decision function) every proposal in
   * `ids` that is still pending, so it stops holding a claim on its resource (a refund's
   * balance), and restores the systems of record. Returns how many were rejected.
   */
  settle(ids: readonly string[]): Promise<number>;
  close(): Promise<void>;
};

/** A request as an agent sends it to POST /api/v1/proposals. */
export function agentRequest(key: string, body: BodyInit | null, contentType = 'application/json'): Request {
  return new Request(INTAKE_URL, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
    body,
  });
}

export async function openCorpusWorld(options: { db?: Database } = {}): Promise<CorpusWorld> {
  let handle: DatabaseHandle | undefined;
  let db = options.db;
  if (!db) {
    handle = await openDatabase({ memory: true });
    await handle.migrate();
    db = handle.db;
  }
  const database = db;
  let systems: DemoSystems | undefined;
  try {
    const { agents } = await seedDemo(database);
    const keyOf = (tenant: Tenant) => {
      const key = agents.find((agent) => agent.tenant === tenant)?.key;
      if (!key) throw new Error(`the demo seed has no agent for ${tenant}`);
      return key;
    };
    const keys: Record<Tenant, string> = { acme: keyOf('acme'), globex: keyOf('globex') };
    const settlers = await database
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(inArray(users.email, Object.values(SETTLER)));
    const settlerOf = (tenant: string) => {
      const id = settlers.find((user) => user.email === SETTLER[tenant as Tenant])?.id;
      if (!id) throw new Error(`no settling approver for tenant ${tenant}`);
      return id;
    };
    systems = await startDemoSystems();
    const started = systems;
    return {
      db: database,
      systems: started,
      keys,
      async agent(tenant) {
        const principal = await authenticateAgent(database, agentRequest(keys[tenant], null));
        if (!principal) throw new Error(`the seeded ${tenant} key did not authenticate`);
        return principal;
      },
      async settle(ids) {
        let rejected = 0;
        for (const id of ids) {
          const [row] = await database.select().from(proposals).where(eq(proposals.id, id)).limit(1);
          if (row?.status !== 'pending_approval') continue;
          await decide(database, started.client, {
            userId: settlerOf(row.tenantId),
            proposalId: row.id,
            request: { decision: 'reject', payloadHash: row.payloadHash, reason: 'corpus run: end of case group' },
          });
          rejected++;
        }
        await started.reset();
        return rejected;
      },
      async close() {
        try {
          await started.close();
        } finally {
          await handle?.close();
        }
      },
    };
  } catch (error) {
    await systems?.close();
    await handle?.close();
    throw error;
  }
}
