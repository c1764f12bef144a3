import { and, eq, inArray } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Proposal, type ProposalStatus, proposals, resourceClaims } from '@/db/schema';
import { decide } from '@/lib/decisions/decide';
import { reviseProposal } from '@/lib/decisions/revise';
import { Refusal } from '@/lib/errors/refusal';
import { expireOverdue } from '@/lib/jobs/expire-proposals';
import { recheckOpen } from '@/lib/jobs/recheck-open';
import { claimsDrift, reconcileClaims } from '@/lib/jobs/reconcile-claims';
import { reconcileExecutions } from '@/lib/jobs/reconcile-executions';
import { setupCommandWorld } from '@/test/fixtures/commands';
import { submitAs } from '@/test/intake';
import { openClaimsFromScratch, readClaims } from './claims';

/**
 * The claims row (lib/gates/claims.ts) against the sum from scratch, after random histories run
 * through the real intake, decisions, revisions, executor, expiry, re-check and reconciliation.
 */
const w = setupCommandWorld();
const t = w.t;
const DAY = 86_400_000;

const RESOURCES = [
  {
    action: 'issue_refund',
    args: (n: number) => ({
      orderId: 'ord_1842',
      amountMinor: 100 * n,
      currency: 'USD',
      reason: 'Customer requested a refund',
    }),
  },
  {
    action: 'issue_refund',
    args: (n: number) => ({
      orderId: 'ord_1843',
      amountMinor: 150 * n,
      currency: 'EUR',
      reason: 'Customer requested a refund',
    }),
  },
  { action: 'hold_stock', args: (n: number) => ({ sku: 'filter-blue', quantity: 1 + (n % 2) }) },
] as const;
const PEOPLE = ['alice', 'bob'] as const;

type Op =
  | { kind: 'propose'; resource: number; size: number }
  | { kind: 'approve' | 'reject'; pick: number; person: number }
  | { kind: 'revise'; pick: number; size: number; person: number }
  | { kind: 'execute'; pick: number; outcome: 'ok' | 'error_500' | 'drained' }
  | { kind: 'expire' | 'recheck' | 'reconcile' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('propose' as const),
      resource: fc.nat(RESOURCES.length - 1),
      size: fc.integer({ min: 1, max: 12 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom('approve' as const, 'reject' as const),
      pick: fc.nat(),
      person: fc.nat(1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('revise' as const),
      pick: fc.nat(),
      size: fc.integer({ min: 1, max: 12 }),
      person: fc.nat(1),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('execute' as const),
      pick: fc.nat(),
      outcome: fc.constantFrom('ok' as const, 'error_500' as const, 'drained' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constantFrom('expire' as const, 'recheck' as const, 'reconcile' as const) }),
  },
);

let sequence = 0;
const seen = new Set<string>();

async function inStatus(statuses: ProposalStatus[]): Promise<Proposal[]> {
  return t.db
    .select()
    .from(proposals)
    .where(inArray(proposals.status, statuses))
    .orderBy(proposals.createdAt, proposals.id);
}

const pickOf = <T>(rows: T[], pick: number): T | undefined => rows[pick % Math.max(rows.length, 1)];

/** A refusal is a possible answer of a history, not a failure of the test. */
async function refusable(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    seen.add('refused');
  }
}

async function apply(step: Op, now: Date): Promise<void> {
  const userId = (person: number) => w.world.userId(PEOPLE[person]!);
  switch (step.kind) {
    case 'propose': {
      const resource = RESOURCES[step.resource]!;
      const body = {
        requestId: `req_claims_${++sequence}`,
        action: resource.action,
        contractVersion: 1,
        args: resource.args(step.size),
      };
      return refusable(() => submitAs(t.db, w.systems.client, agent(), body, { now }));
    }
    case 'approve':
    case 'reject': {
      const proposal = pickOf(
        await inStatus(step.kind === 'approve' ? ['pending_approval'] : ['pending_approval', 'approved']),
        step.pick,
      );
      if (!proposal) return;
      return refusable(() =>
        decide(
          t.db,
          w.systems.client,
          {
            userId: userId(step.person),
            proposalId: proposal.id,
            request: { decision: step.kind, payloadHash: proposal.payloadHash },
          },
          now,
        ),
      );
    }
    case 'revise': {
      const proposal = pickOf(await inStatus(['pending_approval']), step.pick);
      if (!proposal) return;
      const { args } = proposal.payload;
      const edited =
        proposal.action === 'issue_refund'
          ? { ...args, amountMinor: 100 * step.size }
          : { ...args, quantity: 1 + (step.size % 2) };
      await refusable(() =>
        reviseProposal(
          t.db,
          w.systems.client,
          { reason: 'Edited in a test', userId: userId(step.person), proposalId: proposal.id, args: edited },
          now,
        ),
      );
      return;
    }
    case 'execute': {
      const proposal = pickOf(await inStatus(['approved']), step.pick);
      if (!proposal) return;
      const refund = proposal.action === 'issue_refund';
      if (step.outcome === 'error_500') await w.fault(refund ? 'refunds' : 'holds', 'error_500');
      if (step.outcome === 'drained' && refund)
        await drain(proposal.payload.args.orderId as string, proposal.payload.args.currency as string);
      const answer = await w.execute((await w.commandOf(proposal.id)).jws, refund ? 'payments' : 'inventory', {
        deadlineMs: 500,
      });
      seen.add(`executed ${answer.status}`);
      return;
    }
    case 'expire':
      seen.add(`expired ${await expireOverdue(t.db, new Date(now.getTime() + 30 * DAY))}`);
      return;
    case 'recheck':
      await recheckOpen(t.db, w.systems.client, { now, sweepAfterMs: 0 });
      return;
    case 'reconcile':
      await reconcileExecutions(t.db, {
        now: new Date(now.getTime() + DAY),
        systems: (scope) => w.writeClient(scope === 'inventory' ? 'inventory' : 'payments'),
      });
      return;
  }
}

/** Someone refunds what is left of the order outside Countersign: the executor's re-check then fails. */
async function drain(orderId: string, currency: string): Promise<void> {
  const order = (await (await fetch(`${w.systems.systems.service.url}/orders/${orderId}`)).json()) as {
    chargedMinor: number;
    refundedMinor: number;
  };
  if (order.chargedMinor > order.refundedMinor)
    await w.refundDirectly(orderId, order.chargedMinor - order.refundedMinor, currency);
}

const never = (): never => {
  throw new Error('the world is not seeded');
};
let acme: Awaited<ReturnType<typeof w.world.agent>> | undefined;
const agent = () => acme ?? never();

/** Every proposal of earlier histories ends through the real transitions, and the systems of record start over. */
async function startOver(now: Date): Promise<void> {
  await expireOverdue(t.db, new Date(now.getTime() + 30 * DAY));
  for (const proposal of await inStatus(['approved'])) {
    // Whoever of the approvers has not decided it yet (and did not edit it) rejects it.
    for (const person of [...PEOPLE, 'carol'] as const) {
      const rejected = await decide(
        t.db,
        w.systems.client,
        {
          userId: w.world.userId(person),
          proposalId: proposal.id,
          request: { decision: 'reject', payloadHash: proposal.payloadHash },
        },
        now,
      ).catch(() => undefined);
      if (rejected) break;
    }
  }
  expect(await inStatus(['pending_approval', 'approved'])).toEqual([]);
  await w.systems.reset();
}

describe('the claims row', () => {
  it('equals the sum from scratch after every step of random histories (fixed seed)', async () => {
    acme = await w.world.agent('acme');
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 14 }), async (history) => {
        await startOver(new Date());
        for (const step of history) {
          await apply(step, new Date());
          expect(await claimsDrift(t.db), `after ${JSON.stringify(step)}`).toEqual([]);
        }
      }),
      { seed: 2323, numRuns: 40, endOnFailure: true },
    );
    // The histories went through what opens and closes claims, not only refusals.
    const outcomes = [...seen].join(', ');
    for (const expected of ['executed succeeded', 'executed failed', 'executed outcome_unknown', 'refused'])
      expect(outcomes).toContain(expected);
    const ended = await t.db.select({ status: proposals.status }).from(proposals);
    for (const status of ['rejected', 'cancelled', 'expired', 'succeeded'])
      expect(ended.map((row) => row.status)).toContain(status);
    // Forty histories of real intakes and decisions: on PostgreSQL each commit waits for its flush.
  }, 300_000);
});

describe('reconciliation', () => {
  it('repairs a claims row corrupted behind its back, and reports the ids and both values', async () => {
    await startOver(new Date());
    const proposal = await w.propose('issue_refund', {
      orderId: 'ord_1842',
      amountMinor: 700,
      currency: 'USD',
      reason: 'Customer requested a refund',
    });
    const key = proposal.resourceKey!;
    const exact = await openClaimsFromScratch(t.db, 'acme', key);
    expect(await readClaims(t.db, 'acme', key)).toEqual(exact);

    await t.db
      .update(resourceClaims)
      .set({ openCount: exact.count + 3, openTotal: '1' })
      .where(and(eq(resourceClaims.tenantId, 'acme'), eq(resourceClaims.resourceKey, key)));
    expect(await claimsDrift(t.db)).toEqual([
      { tenantId: 'acme', resourceKey: key, held: { count: exact.count + 3, total: 1 }, actual: exact },
    ]);

    expect(await reconcileClaims(t.db)).toEqual([
      { tenantId: 'acme', resourceKey: key, held: { count: exact.count + 3, total: 1 }, actual: exact },
    ]);
    expect(await readClaims(t.db, 'acme', key)).toEqual(exact);
    expect(await claimsDrift(t.db)).toEqual([]);
    // Nothing left to repair: a second run reports nothing.
    expect(await reconcileClaims(t.db)).toEqual([]);
  });

  it('a row that does not exist yet starts from the sum from scratch (a database from before the claims row)', async () => {
    const proposal = await w.propose('issue_refund', {
      orderId: 'ord_1842',
      amountMinor: 300,
      currency: 'USD',
      reason: 'Customer requested a refund',
    });
    const key = proposal.resourceKey!;
    const exact = await openClaimsFromScratch(t.db, 'acme', key);
    await t.db.delete(resourceClaims).where(eq(resourceClaims.resourceKey, key));
    // The next intake on the order counts what is open although no row said so.
    await w.propose('issue_refund', {
      orderId: 'ord_1842',
      amountMinor: 200,
      currency: 'USD',
      reason: 'Customer requested a refund',
    });
    expect(await readClaims(t.db, 'acme', key)).toEqual({ count: exact.count + 1, total: exact.total + 200 });
    expect(await claimsDrift(t.db)).toEqual([]);
  });
});
