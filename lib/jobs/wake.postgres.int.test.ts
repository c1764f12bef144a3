import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DatabaseHandle } from '@/db/client';
import { openReplicaHandle, setupTestDatabase } from '@/test/db';
import { approvedCommand, executorFetch, serveFetcher, writeClients } from '@/test/fixtures/jobs';
import { proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { startWorker, type Worker } from './worker';

/**
 * Approvals committed on one connection pool wake workers on two others at once, as separate
 * `npm run worker` processes are woken (PostgreSQL NOTIFY): with hourly intervals (their first runs
 * are at start, before any approval) every command is executed, exactly once, so by a wake-up.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();
if (t.driver !== 'postgres') {
  throw new Error('wake.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}

let world: SeededWorld;
let executor: ReturnType<typeof executorFetch>;
let server: Awaited<ReturnType<typeof serveFetcher>>;
const replicas: DatabaseHandle[] = [];

beforeAll(async () => {
  world = await seedWorld(t.db);
  executor = executorFetch(t.db, {
    systems: systems.client,
    writeClients: writeClients(systems.systems.service.url, systems.systems.credentials),
  });
  server = await serveFetcher(executor.fetcher);
  for (let i = 0; i < 2; i++) replicas.push(await openReplicaHandle(t.handle));
});
afterAll(async () => {
  await server.close();
  for (const replica of replicas) await replica.close();
});

describe('waking dispatch across connections (PostgreSQL)', () => {
  it('two woken workers on other pools deliver each of 10 approvals once, when it is committed', async () => {
    const hour = 3_600_000;
    const intervals = {
      dispatch: hour,
      expiry: hour,
      reconciliation: hour,
      notifications: hour,
      reminders: hour,
      recheck: hour,
      auditWatch: hour,
    };
    const errors: string[] = [];
    const workers: Worker[] = replicas.map((replica) =>
      startWorker(replica.db, {
        executorBaseUrl: server.url,
        intervals,
        listen: replica.listen,
        log: () => {},
        logError: (line) => errors.push(line),
      }),
    );
    try {
      const agent = await world.agent('acme');
      const commandIds: string[] = [];
      for (let i = 0; i < 10; i++) {
        const body = {
          requestId: `req_wake_pg_${i}`,
          action: 'hold_stock',
          contractVersion: 1,
          args: { sku: 'filter-blue', quantity: 1 },
        };
        const minted = await approvedCommand(t.db, systems.client, agent, world.userId('alice'), body, new Date());
        commandIds.push(minted.commandId);
        // vitest's waitFor gives up long before an hourly interval could come round.
        await vi.waitFor(async () => expect((await proposalRow(t.db, minted.proposal.id)).status).toBe('succeeded'), {
          timeout: 20_000,
          interval: 10,
        });
      }
      expect([...executor.received].sort()).toEqual(commandIds.sort());
      expect(errors).toEqual([]);
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  });
});
