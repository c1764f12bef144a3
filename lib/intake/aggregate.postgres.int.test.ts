import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type Proposal, proposals } from '@/db/schema';
import { reconcileClaims } from '@/lib/jobs/reconcile-claims';
import { setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededAgents } from '@/test/world';

/**
 * A refund split into slices sent at once (PostgreSQL only): routing sums the earlier slices under
 * the per-resource lock, so the slices are routed one after another and none that lifts the
 * order's total above 100.00 EUR escapes two-approver routing.
 */
const t = setupTestDatabase();
if (t.driver !== 'postgres') {
  throw new Error('aggregate.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}
const systems = setupDemoSystems();
const agents = seededAgents(t);

const slice = (requestId: string, amountMinor: number) => ({
  requestId,
  action: 'issue_refund',
  contractVersion: 1,
  args: { orderId: 'ord_1843', amountMinor, currency: 'EUR', reason: 'Customer asked' },
});

async function closeOrder() {
  await t.db.update(proposals).set({ status: 'cancelled' }).where(eq(proposals.resourceKey, 'order:ord_1843'));
  // Written behind the transitions' back: the claims row is repaired as reconciliation would.
  await reconcileClaims(t.db);
}

describe('concurrent slices of one refund (PostgreSQL)', () => {
  it.each([
    { slices: 6, amount: 4000, single: 2 },
    { slices: 8, amount: 2500, single: 4 },
    { slices: 10, amount: 5000, single: 2 },
  ])(
    '$slices slices of $amount at once: exactly $single routed to one approver, the rest to two',
    async ({ slices, amount, single }) => {
      await closeOrder();
      const results = await Promise.all(
        Array.from({ length: slices }, (_, i) =>
          submitAs(t.db, systems.client, agents.acme, slice(`split_${slices}_${amount}_${i}`, amount)),
        ),
      );
      const routed = results
        .map(({ proposal }) => proposal)
        .sort((a: Proposal, b: Proposal) => a.routing.aggregate!.priorCount - b.routing.aggregate!.priorCount);

      // Serialized: each slice saw every slice admitted before it, and only those.
      expect(routed.map((p) => p.routing.aggregate?.priorCount)).toEqual(Array.from({ length: slices }, (_, i) => i));
      expect(routed.map((p) => p.routing.aggregate?.total)).toEqual(
        Array.from({ length: slices }, (_, i) => (i + 1) * amount),
      );
      // The slices on one approver add up to at most the bound; every other one needs two.
      const one = routed.filter((p) => p.routing.approvals === 1);
      expect(one).toHaveLength(single);
      expect(one.reduce((sum, p) => sum + Number(p.payload.args.amountMinor), 0)).toBeLessThanOrEqual(10000);
      expect(
        routed.slice(single).every((p) => p.routing.approvals === 2 && p.routing.rule === 'refunds-over-100'),
      ).toBe(true);
      await closeOrder();
    },
  );
});
