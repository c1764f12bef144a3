import { describe, expect, it } from 'vitest';
import { setupCountingDatabase, setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';

/**
 * The statement budget of intake (PostgreSQL): every statement is a round trip and a socket write,
 * and under the resource lock a round trip of lock time. A new gate or check that adds a query
 * shows up here first.
 */
const t = setupTestDatabase();
const counting = setupCountingDatabase(t, 'statements.postgres.int.test.ts');
const systems = setupDemoSystems();
const seeded = seededWorld(t);

const hold = (requestId: string) => ({ requestId, action: 'hold_stock', contractVersion: 1, args: { sku: 'filter-blue', quantity: 1 } });

describe('intake statement budget', () => {
  it('admits a new proposal in at most 13 statements (11 once its resource has a claims row), and answers a retry in at most 3', async () => {
    const created = await counting.statementsOf(() => submitAs(counting.db, systems.client, seeded.acme, hold('req_budget_1')));
    const replayed = await counting.statementsOf(() => submitAs(counting.db, systems.client, seeded.acme, hold('req_budget_1')));
    // The resource's claims row exists now: the locked upsert of it is the lock and the sum.
    const next = await counting.statementsOf(() => submitAs(counting.db, systems.client, seeded.acme, hold('req_budget_2')));
    console.log(`[intake] ${created} statements for a new proposal on a new resource, ${next} on a known one, ${replayed} for a retry`);
    expect(created).toBeLessThanOrEqual(13);
    expect(next).toBeLessThanOrEqual(11);
    expect(replayed).toBeLessThanOrEqual(3);
  });

  it('waits for few round trips: the lock and the reads under it are one, the proposal and its rows one more', async () => {
    await submitAs(counting.db, systems.client, seeded.acme, hold('req_trips_warm'));
    const trips = await counting.roundTripsOf(() => submitAs(counting.db, systems.client, seeded.acme, hold('req_trips_1')));
    const statements = await counting.statementsOf(() => submitAs(counting.db, systems.client, seeded.acme, hold('req_trips_2')));
    console.log(`[intake] ${trips} round trips for ${statements} statements on a known resource`);
    expect(trips).toBeLessThanOrEqual(8);
    expect(trips).toBeLessThan(statements);
  });
});
