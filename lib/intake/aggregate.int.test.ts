import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type Proposal, type ProposalStatus, policies, proposals } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { proposalDetail } from '@/lib/api/responses/proposal-json';
import { decide } from '@/lib/decisions/decide';
import { reviseProposal } from '@/lib/decisions/revise';
import { newId } from '@/lib/ids';
import { reconcileClaims } from '@/lib/jobs/reconcile-claims';
import { AGGREGATED_STATUSES } from '@/lib/policy/aggregate';
import { routingContext } from '@/lib/proposals/wording';
import { setupTestDatabase } from '@/test/db';
import { expectRejection, submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';

/**
 * Aggregate bounds (docs/design.md §6): the demo refund policy bounds the sum of an order's refunds
 * within 24 h, so splitting a refund never lowers the number of approvers. Every scenario runs on
 * its own day, more than a window apart, and ends by closing what it opened on the order.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);

const HOUR = 3_600_000;
let day = 0;
/** Noon of a day no earlier scenario used. */
const freshDay = () => new Date(Date.UTC(2031, 0, 1, 12) + ++day * 3 * 24 * HOUR);
let sequence = 0;

async function refundAt(
  now: Date,
  amountMinor: number,
  orderId = 'ord_1843',
  agent: AgentPrincipal = seeded.acme,
): Promise<Proposal> {
  const currency = orderId === 'ord_1843' ? 'EUR' : 'USD';
  const body = {
    requestId: `agg_${++sequence}`,
    action: 'issue_refund',
    contractVersion: 1,
    args: { orderId, amountMinor, currency, reason: 'Customer asked' },
  };
  return (await submitAs(t.db, systems.client, agent, body, { now })).proposal;
}

async function setStatus(id: string, status: ProposalStatus) {
  await t.db.update(proposals).set({ status }).where(eq(proposals.id, id));
  // Written behind the transitions' back: the claims row is repaired as reconciliation would.
  await reconcileClaims(t.db);
}

/** Ends the scenario: nothing on the order holds a claim on its balance any more. */
async function closeOrder(orderId = 'ord_1843') {
  await t.db
    .update(proposals)
    .set({ status: 'cancelled' })
    .where(eq(proposals.resourceKey, `order:${orderId}`));
  // Written behind the transitions' back: the claims row is repaired as reconciliation would.
  await reconcileClaims(t.db);
}

const routed = (proposal: Proposal) => ({
  approvals: proposal.routing.approvals,
  rule: proposal.routing.rule,
  priorCount: proposal.routing.aggregate?.priorCount,
  total: proposal.routing.aggregate?.total,
});

describe('a refund split on one order is routed by its running total', () => {
  it('three refunds of 100.00 EUR on ord_1843: one approver for the first, two once the total passes 100.00', async () => {
    const now = freshDay();
    const steps = [
      { approvals: 1, rule: 'refunds-up-to-100', priorCount: 0, total: 10000, context: null },
      {
        approvals: 2,
        rule: 'refunds-over-100',
        priorCount: 1,
        total: 20000,
        context: 'With 1 earlier refund on ord_1843 in the last 24 h: 200.00 EUR in all',
      },
      {
        approvals: 2,
        rule: 'refunds-over-100',
        priorCount: 2,
        total: 30000,
        context: 'With 2 earlier refunds on ord_1843 in the last 24 h: 300.00 EUR in all',
      },
    ];
    for (const [i, step] of steps.entries()) {
      const proposal = await refundAt(new Date(now.getTime() + i * 60_000), 10000);
      expect(routed(proposal), `refund ${i + 1}`).toEqual({
        approvals: step.approvals,
        rule: step.rule,
        priorCount: step.priorCount,
        total: step.total,
      });
      expect(proposal.routing).toMatchObject({
        policyVersion: 2,
        aggregate: { field: 'amountMinor', windowHours: 24, priorSum: step.total - 10000 },
      });
      expect(routingContext(proposal)).toBe(step.context);
      // The agent API carries the same sentence.
      expect(proposalDetail(proposal, [], 'http://countersign.test', 'agent')).toMatchObject({
        routingContext: step.context,
        routing: proposal.routing,
      });
    }
    await closeOrder();
  });

  it('many small slices: every slice after the running total passes 100.00 needs two approvers', async () => {
    const now = freshDay();
    const approvals: number[] = [];
    for (let i = 0; i < 6; i++)
      approvals.push((await refundAt(new Date(now.getTime() + i * 60_000), 3000)).routing.approvals);
    // Totals 30, 60, 90, 120, 150, 180 EUR.
    expect(approvals).toEqual([1, 1, 1, 2, 2, 2]);
    await closeOrder();
  });

  it.each([
    { amount: 20000, approvals: 2, rule: 'refunds-over-100' },
    { amount: 10001, approvals: 2, rule: 'refunds-over-100' },
    { amount: 10000, approvals: 1, rule: 'refunds-up-to-100' },
  ])(
    'a single refund of $amount minor units alone needs $approvals approver(s), with no context sentence',
    async ({ amount, approvals, rule }) => {
      const proposal = await refundAt(freshDay(), amount);
      expect(routed(proposal)).toEqual({ approvals, rule, priorCount: 0, total: amount });
      expect(routingContext(proposal)).toBeNull();
      await closeOrder();
    },
  );

  it('counts refunds on the same order only: another order and another tenant add nothing', async () => {
    const now = freshDay();
    await refundAt(now, 4000, 'ord_1842');
    await refundAt(now, 9000, 'ord_9001', seeded.globex);
    const proposal = await refundAt(new Date(now.getTime() + 60_000), 10000);
    expect(routed(proposal)).toMatchObject({ approvals: 1, priorCount: 0 });
    await closeOrder();
    await closeOrder('ord_1842');
    await closeOrder('ord_9001');
  });
});

describe('which earlier proposals count', () => {
  const ALL: ProposalStatus[] = [
    'pending_approval',
    'approved',
    'executing',
    'succeeded',
    'outcome_unknown',
    'rejected',
    'expired',
    'stale',
    'cancelled',
    'failed',
  ];

  it.each(ALL.map((status) => ({ status, counted: (AGGREGATED_STATUSES as readonly string[]).includes(status) })))(
    'an earlier refund now $status counts: $counted',
    async ({ status, counted }) => {
      const now = freshDay();
      const earlier = await refundAt(now, 10000);
      await setStatus(earlier.id, status);
      const next = await refundAt(new Date(now.getTime() + HOUR), 10000);
      expect(routed(next)).toMatchObject(
        counted ? { approvals: 2, priorCount: 1, total: 20000 } : { approvals: 1, priorCount: 0, total: 10000 },
      );
      await closeOrder();
    },
  );

  it('counts outcome_unknown and succeeded as spent: they were, or may have been, refunded', () => {
    expect([...AGGREGATED_STATUSES].sort()).toEqual([
      'approved',
      'executing',
      'outcome_unknown',
      'pending_approval',
      'succeeded',
    ]);
  });

  it.each([
    { ago: 23 * HOUR + 59 * 60_000, counted: true },
    { ago: 24 * HOUR, counted: true },
    { ago: 24 * HOUR + 60_000, counted: false },
    { ago: 72 * HOUR, counted: false },
  ])('an earlier refund created $ago ms before counts: $counted (24 h window)', async ({ ago, counted }) => {
    const now = freshDay();
    const earlier = await refundAt(new Date(now.getTime() - ago), 10000);
    const next = await refundAt(now, 10000);
    expect(routed(next)).toMatchObject(counted ? { approvals: 2, priorCount: 1 } : { approvals: 1, priorCount: 0 });
    expect(earlier.routing.approvals).toBe(1);
    await closeOrder();
  });
});

describe('revisions are routed again, without counting the parent they replace', () => {
  const revise = (proposalId: string, amountMinor: number, now: Date) =>
    reviseProposal(
      t.db,
      systems.client,
      {
        reason: 'Edited in a test',
        userId: seeded.world.userId('alice'),
        proposalId,
        args: { orderId: 'ord_1843', amountMinor, currency: 'EUR', reason: 'Customer asked' },
      },
      now,
    );

  it('a revision of the only refund is routed on its own amount, not on parent plus revision', async () => {
    const now = freshDay();
    const parent = await refundAt(now, 10000);
    const revision = await revise(parent.id, 9000, new Date(now.getTime() + 60_000));
    expect(routed(revision)).toEqual({ approvals: 1, rule: 'refunds-up-to-100', priorCount: 0, total: 9000 });
    await closeOrder();
  });

  it('a revision that lifts the order’s total over 100.00 needs two approvers, and its decision follows that', async () => {
    const now = freshDay();
    const parent = await refundAt(now, 6000);
    const sibling = await refundAt(new Date(now.getTime() + 60_000), 3000);
    expect(sibling.routing.approvals).toBe(1);
    const revision = await revise(parent.id, 8000, new Date(now.getTime() + 120_000));
    expect(routed(revision)).toEqual({ approvals: 2, rule: 'refunds-over-100', priorCount: 1, total: 11000 });
    expect(routingContext(revision)).toBe('With 1 earlier refund on ord_1843 in the last 24 h: 110.00 EUR in all');

    const approve = { decision: 'approve' as const, payloadHash: revision.payloadHash };
    const at = new Date(now.getTime() + 180_000);
    expect(
      (
        await decide(
          t.db,
          systems.client,
          { userId: seeded.world.userId('bob'), proposalId: revision.id, request: approve },
          at,
        )
      ).status,
    ).toBe('pending_approval');
    expect(
      (
        await decide(
          t.db,
          systems.client,
          { userId: seeded.world.userId('carol'), proposalId: revision.id, request: approve },
          at,
        )
      ).status,
    ).toBe('approved');
    await closeOrder();
  });
});

describe('any action may bound an aggregate', () => {
  it('holds of one SKU within 1 h: the second pushes the quantity past 3 and needs two approvers, in generic words', async () => {
    const rules = [
      {
        id: 'big-holds',
        description: 'More than 3 units of one SKU within 1 h',
        when: { field: 'quantity', above: 3, aggregate: { windowHours: 1 } },
        outcome: 'needs_approval',
        approvals: 2,
        role: 'approver',
      },
      {
        id: 'small-holds',
        description: 'The rest',
        when: null,
        outcome: 'needs_approval',
        approvals: 1,
        role: 'approver',
      },
    ];
    await t.db
      .insert(policies)
      .values({ id: newId('pol'), tenantId: 'globex', action: 'hold_stock', version: 2, rules });
    const now = freshDay();
    const hold = async (at: Date) => {
      const body = {
        requestId: `agg_${++sequence}`,
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku: 'filter-green', quantity: 2 },
      };
      return (await submitAs(t.db, systems.client, seeded.globex, body, { now: at })).proposal;
    };
    const first = await hold(now);
    const second = await hold(new Date(now.getTime() + 60_000));
    const third = await hold(new Date(now.getTime() + 2 * HOUR));
    expect([first, second, third].map(routed)).toEqual([
      { approvals: 1, rule: 'small-holds', priorCount: 0, total: 2 },
      { approvals: 2, rule: 'big-holds', priorCount: 1, total: 4 },
      { approvals: 1, rule: 'small-holds', priorCount: 0, total: 2 },
    ]);
    expect(routingContext(second)).toBe(
      'With 1 earlier proposal of this action on sku:filter-green in the last 1 h: quantity 4 in all',
    );
    await t.db
      .delete(policies)
      .where(and(eq(policies.tenantId, 'globex'), eq(policies.action, 'hold_stock'), eq(policies.version, 2)));
  });
});

describe('the policy is validated data', () => {
  it('denies every proposal of an action whose newest policy does not validate (fails closed)', async () => {
    const rules = [
      {
        id: 'bad-window',
        description: 'A window of zero hours',
        when: { field: 'amountMinor', above: 10000, aggregate: { windowHours: 0 } },
        outcome: 'needs_approval',
        approvals: 2,
        role: 'approver',
      },
    ];
    await t.db
      .insert(policies)
      .values({ id: newId('pol'), tenantId: 'globex', action: 'issue_refund', version: 3, rules });
    const { error } = await expectRejection(t.db, () => refundAt(freshDay(), 100, 'ord_9001', seeded.globex), {
      status: 403,
      kind: 'authorization',
      code: 'denied_by_policy',
    });
    expect(error.message).toContain('invalid-policy');
    await t.db
      .delete(policies)
      .where(and(eq(policies.tenantId, 'globex'), eq(policies.action, 'issue_refund'), eq(policies.version, 3)));
  });
});
