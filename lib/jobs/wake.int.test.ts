import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, executorFetch, serveFetcher, writeClients } from '@/test/fixtures/jobs';
import { proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { startWorker } from './worker';

/**
 * An approval wakes the dispatcher on commit. The intervals are an hour: the worker's first runs
 * happen at its start, before any approval, and no interval comes round while the test runs, so
 * every command executed was dispatched by a wake-up. No clock is read: without the wake-up the
 * proposal never succeeds and the wait gives up.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();

let world: SeededWorld;
let executor: ReturnType<typeof executorFetch>;
let server: Awaited<ReturnType<typeof serveFetcher>>;

beforeAll(async () => {
  world = await seedWorld(t.db);
  executor = executorFetch(t.db, {
    systems: systems.client,
    writeClients: writeClients(systems.systems.service.url, systems.systems.credentials),
  });
  server = await serveFetcher(executor.fetcher);
});
afterAll(() => server.close());

const HOUR = 3_600_000;

/** Waits until the proposal succeeded (vitest's waitFor gives up long before an interval could come round). */
async function untilSucceeded(proposalId: string): Promise<void> {
  await vi.waitFor(async () => expect((await proposalRow(t.db, proposalId)).status).toBe('succeeded'), {
    timeout: 20_000,
    interval: 10,
  });
}

describe('waking dispatch on commit', () => {
  it('delivers each approval when it is committed, not at the (hourly) interval', async () => {
    const errors: string[] = [];
    const worker = startWorker(t.db, {
      executorBaseUrl: server.url,
      intervals: {
        dispatch: HOUR,
        expiry: HOUR,
        reconciliation: HOUR,
        notifications: HOUR,
        reminders: HOUR,
        recheck: HOUR,
        auditWatch: HOUR,
      },
      listen: t.handle.listen,
      log: () => {},
      logError: (line) => errors.push(line),
    });
    try {
      const agent = await world.agent('acme');
      for (let i = 0; i < 3; i++) {
        const body = {
          requestId: `req_wake_${i}`,
          action: 'hold_stock',
          contractVersion: 1,
          args: { sku: 'filter-blue', quantity: 1 },
        };
        const minted = await approvedCommand(t.db, systems.client, agent, world.userId('alice'), body, new Date());
        await untilSucceeded(minted.proposal.id);
        expect(executor.received.filter((jti) => jti === minted.commandId)).toHaveLength(1);
      }
      expect(errors).toEqual([]);
    } finally {
      await worker.stop();
    }
  });
});
