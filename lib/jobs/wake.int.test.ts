import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, executorFetch, serveFetcher, writeClients } from '@/test/fixtures/jobs';
import { proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { seedWorld, type SeededWorld } from '@/test/world';
import { startWorker } from './worker';

/** An approval wakes the dispatcher on commit: with a 60 s interval, its command still runs at once. */
const t = setupTestDatabase();
const systems = setupDemoSystems();

let world: SeededWorld;
let executor: ReturnType<typeof executorFetch>;
let server: Awaited<ReturnType<typeof serveFetcher>>;

beforeAll(async () => {
  world = await seedWorld(t.db);
  executor = executorFetch(t.db, { systems: systems.client, writeClients: writeClients(systems.systems.service.url, systems.systems.credentials) });
  server = await serveFetcher(executor.fetcher);
});
afterAll(() => server.close());

/** Polls until the proposal succeeded or `ms` passed; answers the time it took. */
async function untilSucceeded(proposalId: string, ms: number): Promise<number> {
  const began = Date.now();
  while (Date.now() - began < ms && (await proposalRow(t.db, proposalId)).status !== 'succeeded') await new Promise((resolve) => setTimeout(resolve, 10));
  return Date.now() - began;
}

describe('waking dispatch on commit', () => {
  it('delivers each approval within seconds, not at the 60 s interval', async () => {
    const errors: string[] = [];
    const worker = startWorker(t.db, {
      executorBaseUrl: server.url,
      intervals: { dispatch: 60_000, expiry: 60_000, reconciliation: 60_000, notifications: 60_000, reminders: 60_000, recheck: 60_000, auditWatch: 60_000 },
      listen: t.handle.listen,
      log: () => {},
      logError: (line) => errors.push(line),
    });
    try {
      const agent = await world.agent('acme');
      for (let i = 0; i < 3; i++) {
        const body = { requestId: `req_wake_${i}`, action: 'hold_stock', contractVersion: 1, args: { sku: 'filter-blue', quantity: 1 } };
        const minted = await approvedCommand(t.db, systems.client, agent, world.userId('alice'), body, new Date());
        expect(await untilSucceeded(minted.proposal.id, 5_000)).toBeLessThan(5_000);
        expect(executor.received.filter((jti) => jti === minted.commandId)).toHaveLength(1);
      }
      expect(errors).toEqual([]);
    } finally {
      await worker.stop();
    }
  });
});
