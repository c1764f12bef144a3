import { count, eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, outbox, proposals } from '@/db/schema';
import { GENESIS_HASH } from '@/lib/events/append';
import { chainAllPending } from '@/lib/events/chainer';
import { setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { auditChain } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { seedWorld } from '@/test/world';
import { expireOverdue } from './expire-proposals';

/** Parallel sweeps need real row locks: PostgreSQL only (integration-postgres). */
const t = setupTestDatabase();
const systems = setupDemoSystems();
if (t.driver !== 'postgres') {
  throw new Error(
    'expire-proposals.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.',
  );
}

const ids: string[] = [];
const created = new Date('2031-03-01T00:00:00Z');

beforeAll(async () => {
  const world = await seedWorld(t.db);
  for (const tenant of ['acme', 'globex'] as const) {
    const agent = await world.agent(tenant);
    for (let i = 0; i < 15; i++) {
      const body = {
        requestId: `req_par_sweep_${tenant}_${i}`,
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku: tenant === 'acme' ? 'filter-blue' : 'filter-green', quantity: 1 },
      };
      ids.push((await submitAs(t.db, systems.client, agent, body, { now: created })).proposal.id);
    }
  }
});

describe('parallel expiry sweeps (PostgreSQL)', () => {
  it('four sweeps at once expire each proposal exactly once: one audit event and one outbox row each', async () => {
    const sweepAt = new Date(created.getTime() + 25 * 3_600_000);
    const counts = await Promise.all([1, 2, 3, 4].map(() => expireOverdue(t.db, sweepAt, 3)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(ids.length);
    const statuses = await t.db.select({ status: proposals.status }).from(proposals).where(inArray(proposals.id, ids));
    expect(statuses.every((row) => row.status === 'expired')).toBe(true);
    await chainAllPending(t.db);
    const [expiredEvents] = await t.db
      .select({ n: count() })
      .from(auditEvents)
      .where(eq(auditEvents.type, 'proposal.expired'));
    expect(expiredEvents?.n).toBe(ids.length);
    const [expiredOutbox] = await t.db.select({ n: count() }).from(outbox).where(eq(outbox.topic, 'proposal.expired'));
    expect(expiredOutbox?.n).toBe(ids.length);
    for (const tenant of ['acme', 'globex']) {
      const chain = await auditChain(t.db, tenant);
      chain.forEach((row, index) => expect(row.prevHash).toBe(index === 0 ? GENESIS_HASH : chain[index - 1]?.hash));
    }
    expect(await expireOverdue(t.db, sweepAt, 3)).toBe(0);
  });
});
