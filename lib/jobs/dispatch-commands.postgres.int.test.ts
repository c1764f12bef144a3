import { and, count, eq, isNotNull } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { executions, outbox } from '@/db/schema';
import { openReplicaHandle, setupTestDatabase } from '@/test/db';
import { approvedCommand, executorFetch, type Minted, writeClients } from '@/test/fixtures/jobs';
import { setupDemoSystems } from '@/test/systems';
import { seedWorld } from '@/test/world';
import { COMMAND_MINTED, dispatchCommands } from './dispatch-commands';

/** Parallel dispatchers need real row locks: PostgreSQL only (integration-postgres). */
const t = setupTestDatabase();
const systems = setupDemoSystems();
if (t.driver !== 'postgres') {
  throw new Error(
    'dispatch-commands.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.',
  );
}

const minted: Minted[] = [];

beforeAll(async () => {
  const world = await seedWorld(t.db);
  const now = new Date();
  for (const tenant of ['acme', 'globex'] as const) {
    const agent = await world.agent(tenant);
    for (let i = 0; i < 10; i++) {
      const body = {
        requestId: `req_par_dispatch_${tenant}_${i}`,
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku: tenant === 'acme' ? 'filter-blue' : 'filter-green', quantity: 1 },
      };
      minted.push(
        await approvedCommand(
          t.db,
          systems.client,
          agent,
          world.userId(tenant === 'acme' ? 'alice' : 'erin'),
          body,
          now,
        ),
      );
    }
  }
});

describe('parallel dispatchers (PostgreSQL)', () => {
  it('two dispatchers on two connection pools deliver each of 20 commands exactly once to the real executor', async () => {
    const replica = await openReplicaHandle(t.handle);
    try {
      const executor = executorFetch(t.db, {
        systems: systems.client,
        writeClients: writeClients(systems.systems.service.url, systems.systems.credentials),
      });
      const run = async (db: typeof t.db) => {
        let delivered = 0;
        for (let round = 0; round < 10; round++) {
          const result = await dispatchCommands(db, {
            executorBaseUrl: 'http://executor.test',
            fetch: executor.fetcher,
            limit: 3,
          });
          delivered += result.delivered;
          if (result.claimed === 0) break;
        }
        return delivered;
      };
      const [a, b] = await Promise.all([run(t.db), run(replica.db)]);
      expect(a + b).toBe(20);
      // The executor received each jti exactly once.
      expect([...executor.received].sort()).toEqual(minted.map((m) => m.commandId).sort());
      const [delivered] = await t.db
        .select({ n: count() })
        .from(outbox)
        .where(and(eq(outbox.topic, COMMAND_MINTED), isNotNull(outbox.deliveredAt), eq(outbox.attempts, 1)));
      expect(delivered?.n).toBe(20);
      const rows = await t.db.select({ status: executions.status }).from(executions);
      expect(rows).toHaveLength(20);
      expect(rows.every((row) => row.status === 'succeeded')).toBe(true);
    } finally {
      await replica.close();
    }
  });
});
