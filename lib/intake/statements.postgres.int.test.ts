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
  it('admits a new proposal in at most 11 statements (10 once its resource has a claims row), and answers a retry in at most 3', async () => {
    const created = await counting.statementsOf(() => submitAs(counting.db, systems.client, seeded.acme, hold('req_budget_1')));
    const replayed = await counting.statementsOf(() => submitAs(counting.db, systems.client, seeded.acme, hold('req_budget_1')));
    // The resource's claims row exists now: one locked read of it replaces the lock and the sum.
    const next = await counting.statementsOf(() => submitAs(counting.db, systems.client, seeded.acme, hold('req_budget_2')));
    console.log(`[intake] ${created} statements for a new proposal on a new resource, ${next} on a known one, ${replayed} for a retry`);
    // The audit event is one pending row, chained after commit (lib/events/chainer.ts): no head lock, no second statement.
    expect(created).toBeLessThanOrEqual(11);
    expect(next).toBeLessThanOrEqual(10);
    expect(replayed).toBeLessThanOrEqual(3);
  });
});
