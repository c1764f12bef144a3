import { count, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, auditHeads } from '@/db/schema';
import { decide } from '@/lib/decisions/decide';
import { appendAudit, auditHashInput, GENESIS_HASH } from '@/lib/events/append';
import { chainAllPending } from '@/lib/events/chainer';
import { submitProposal } from '@/lib/intake/intake';
import { payloadHash } from '@/lib/payload-hash';
import { setupTestDatabase } from '@/test/db';
import { auditChain, databaseErrorText } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { seedWorld } from '@/test/world';

const t = setupTestDatabase();
const systems = setupDemoSystems();

beforeAll(async () => {
  const world = await seedWorld(t.db);
  for (const tenant of ['acme', 'globex'] as const) {
    const agent = await world.agent(tenant);
    const sku = tenant === 'acme' ? 'filter-blue' : 'filter-green';
    for (let i = 1; i <= 3; i++) {
      const body = {
        requestId: `req_audit_${i}`,
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku, quantity: i },
      };
      const { proposal } = await submitProposal(
        t.db,
        agent,
        { text: JSON.stringify(body), value: body },
        systems.client,
      );
      if (i === 1) {
        const approver = world.userId(tenant === 'acme' ? 'alice' : 'erin');
        await decide(t.db, systems.client, {
          userId: approver,
          proposalId: proposal.id,
          request: { decision: 'approve', payloadHash: proposal.payloadHash },
        });
      }
    }
  }
  // Values that need escaping are hashed and stored as they are.
  await appendAudit(t.db, {
    tenantId: 'acme',
    type: 'auth.sign_in_locked',
    actor: { type: 'system', id: 'test' },
    reasonCode: 'line\nbreak',
    data: { note: 'tab\there "quoted" \u2028', n: 1.5, flag: true, none: null },
  });
  await chainAllPending(t.db);
});

async function auditCount(): Promise<number> {
  const [row] = await t.db.select({ n: count() }).from(auditEvents);
  return row?.n ?? 0;
}

/**
 * As the tables' owner (PGlite's one user): the trigger refuses; the application's role has no such privilege at all
 * (app-role.postgres.int.test.ts).
 */
async function refusal(query: ReturnType<typeof sql>): Promise<string> {
  try {
    await t.owner.execute(query);
  } catch (error) {
    return databaseErrorText(error);
  }
  throw new Error('the database accepted a change to audit_events');
}

describe('audit_events is append-only in the database', () => {
  it.each([
    ['UPDATE', sql`update audit_events set type = 'proposal.forged' where tenant_id = 'acme' and seq = 1`],
    ['UPDATE of every row', sql`update audit_events set reason_code = null`],
    [
      'DELETE',
      sql`delete from audit_events where tenant_id = 'acme' and seq = (select max(seq) from audit_events where tenant_id = 'acme')`,
    ],
    ['DELETE of every row', sql`delete from audit_events`],
    ['TRUNCATE', sql`truncate audit_events`],
  ])('refuses %s and changes nothing', async (_label, query) => {
    const before = await t.db.select().from(auditEvents).orderBy(auditEvents.tenantId, auditEvents.seq);
    expect(before.length).toBeGreaterThan(0);
    const text = await refusal(query);
    expect(text).toMatch(/append-only/);
    expect(text).toContain('code=42501');
    expect(await t.db.select().from(auditEvents).orderBy(auditEvents.tenantId, auditEvents.seq)).toEqual(before);
  });

  it('refuses an UPDATE inside a transaction too, rolling the transaction back', async () => {
    const before = await auditCount();
    await expect(
      t.db.transaction(async (tx) => {
        await appendAudit(tx, { tenantId: 'acme', type: 'agent_key.revoked', actor: { type: 'system', id: 'test' } });
        await tx.update(auditEvents).set({ actorId: 'someone-else' }).where(eq(auditEvents.tenantId, 'acme'));
      }),
    ).rejects.toThrow();
    expect(await auditCount()).toBe(before);
    const [head] = await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, 'acme'));
    const chain = await auditChain(t.db, 'acme');
    expect(head).toMatchObject({ seq: chain.length, hash: chain.at(-1)?.hash });
  });
});

describe('the audit hash chain', () => {
  it.each(['acme', 'globex'])('links every %s row to the previous one, with contiguous seq from 1', async (tenant) => {
    const chain = await auditChain(t.db, tenant);
    expect(chain.length).toBeGreaterThanOrEqual(5);
    chain.forEach((row, index) => {
      expect(row.tenantId).toBe(tenant);
      expect(row.seq).toBe(index + 1);
      expect(row.prevHash).toBe(index === 0 ? GENESIS_HASH : chain[index - 1]?.hash);
    });
    expect(new Set(chain.map((row) => row.hash)).size).toBe(chain.length);
    const [head] = await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, tenant));
    expect(head).toEqual({ tenantId: tenant, seq: chain.length, hash: chain.at(-1)?.hash });
  });

  it.each(['acme', 'globex'])(
    'lets a verifier recompute each %s row hash from the stored fields (JCS + SHA-256)',
    async (tenant) => {
      const chain = await auditChain(t.db, tenant);
      for (const row of chain) {
        const { hash, ...fields } = row;
        expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
        expect(payloadHash(auditHashInput(fields)), `row ${tenant}#${row.seq} (${row.type})`).toBe(hash);
      }
    },
  );

  it('records the proposal lifecycle with hashes and reason codes, never payload values', async () => {
    const chain = await auditChain(t.db, 'acme');
    const types = chain.map((row) => row.type);
    expect(types.slice(0, 2)).toEqual(['tenant.created', 'membership.granted']);
    expect(types).toContain('agent_key.created');
    expect(types.filter((type) => type === 'proposal.created')).toHaveLength(3);
    expect(types.filter((type) => type === 'proposal.approved')).toHaveLength(1);
    for (const row of chain.filter((event) => event.type.startsWith('proposal.'))) {
      expect(row.proposalId).toMatch(/^prp_/);
      expect(row.payloadHash).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain('filter-blue');
    }
  });

  it('keeps tenants apart: each chain starts at genesis and names only its own tenant', async () => {
    const globex = await auditChain(t.db, 'globex');
    expect(globex[0]).toMatchObject({ seq: 1, prevHash: GENESIS_HASH, type: 'tenant.created' });
    const acmeHashes = new Set((await auditChain(t.db, 'acme')).map((row) => row.hash));
    expect(globex.some((row) => acmeHashes.has(row.prevHash))).toBe(false);
  });

  it('chains an appended event after the head', async () => {
    const before = await auditChain(t.db, 'globex');
    await appendAudit(t.db, {
      tenantId: 'globex',
      type: 'agent_key.revoked',
      actor: { type: 'system', id: 'test' },
      data: { k: 'v' },
    });
    const after = await auditChain(t.db, 'globex');
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)).toMatchObject({
      seq: before.length + 1,
      type: 'agent_key.revoked',
      data: { k: 'v' },
      prevHash: before.at(-1)?.hash,
    });
  });
});
