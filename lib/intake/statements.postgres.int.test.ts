import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authenticateAgent } from '@/lib/agents/authenticate';
import { type AttachedReadCache, attachReadCache } from '@/lib/cache/read-cache';
import { setupCountingDatabase, setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { agentRequest, seededWorld } from '@/test/world';

/**
 * The statement budget of intake (PostgreSQL): every statement is a round trip and a socket write,
 * and under the resource lock a round trip of lock time. A new gate or check that adds a query
 * shows up here first. The counting pool has the read cache a server's pool has (lib/database.ts),
 * warmed as a running server's is: the key, the tenant's contracts, its policy and whether it has
 * standing grants are not read.
 */
const t = setupTestDatabase();
const counting = setupCountingDatabase(t, 'statements.postgres.int.test.ts');
const systems = setupDemoSystems();
const seeded = seededWorld(t);
let attached: AttachedReadCache;

beforeAll(async () => {
  attached = attachReadCache(counting.db, t.handle.listen);
  await vi.waitFor(() => expect(attached.cache.stats().live).toBe(true));
});
afterAll(async () => {
  await attached.stop();
});

const hold = (requestId: string, sku = 'filter-blue') => ({
  requestId,
  action: 'hold_stock',
  contractVersion: 1,
  args: { sku, quantity: 1 },
});

describe('intake statement budget', () => {
  it('with warm caches, admits a new proposal in at most 10 statements (8 once its resource has a claims row), and answers a retry in at most 2', async () => {
    const cold = await counting.statementsOf(() =>
      submitAs(counting.db, systems.client, seeded.acme, hold('req_budget_0', 'filter-gray')),
    );
    const created = await counting.statementsOf(() =>
      submitAs(counting.db, systems.client, seeded.acme, hold('req_budget_1')),
    );
    const replayed = await counting.statementsOf(() =>
      submitAs(counting.db, systems.client, seeded.acme, hold('req_budget_1')),
    );
    // The resource's claims row exists now: the locked upsert of it is the lock and the sum.
    const next = await counting.statementsOf(() =>
      submitAs(counting.db, systems.client, seeded.acme, hold('req_budget_2')),
    );
    console.log(
      `[intake] ${cold} statements with cold caches, ${created} for a new proposal on a new ` +
        `resource, ${next} on a known one, ${replayed} for a retry`,
    );
    // Cold: the key, contracts (rollouts and the tenant's definitions), policy and the tenant's grants
    // flag are read once, then kept.
    expect(cold).toBeLessThanOrEqual(14);
    expect(created).toBeLessThanOrEqual(10);
    expect(next).toBeLessThanOrEqual(8);
    expect(replayed).toBeLessThanOrEqual(2);
  });

  it('authenticates a kept key in no statement (its last use is written at most once a minute)', async () => {
    const request = () => agentRequest(seeded.world.agentKey('acme'));
    const T0 = new Date();
    const first = await counting.statementsOf(() => authenticateAgent(counting.db, request(), T0));
    const kept = await counting.statementsOf(() =>
      authenticateAgent(counting.db, request(), new Date(T0.getTime() + 1_000)),
    );
    console.log(`[auth] ${first} statements for a key's first use, ${kept} once kept`);
    expect(first).toBeLessThanOrEqual(2);
    expect(kept).toBe(0);
  });

  it('waits for three round trips: the idempotency check, the lock with the reads under it, and the writes', async () => {
    await submitAs(counting.db, systems.client, seeded.acme, hold('req_trips_warm'));
    const trips = await counting.roundTripsOf(() =>
      submitAs(counting.db, systems.client, seeded.acme, hold('req_trips_1')),
    );
    const statements = await counting.statementsOf(() =>
      submitAs(counting.db, systems.client, seeded.acme, hold('req_trips_2')),
    );
    console.log(`[intake] ${trips} round trips for ${statements} statements on a known resource`);
    expect(trips).toBeLessThanOrEqual(3);
    expect(trips).toBeLessThan(statements);
  });
});
