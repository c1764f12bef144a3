import { count } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, policies } from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import type { RoutingRule } from '@/lib/routing-rules';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { backtest } from './backtest';
import { currentPolicies } from './current';
import { backtestDays, planPolicies } from './plan';
import { loadPolicy } from './routing';

const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);

let requests = 0;
const refund = async (agent: AgentPrincipal, orderId: string, amountMinor: number, currency = 'EUR') => {
  const { proposal } = await submitAs(t.db, systems.client, agent, {
    requestId: `plan-refund-${++requests}`,
    action: 'issue_refund',
    contractVersion: 1,
    args: { orderId, amountMinor, currency, reason: 'Partial refund' },
  });
  return proposal.id;
};

/** acme's issue_refund entry with its two-approver bound at `above` (minor units), as an admin's draft. */
async function refundDraft(above: number) {
  const entry = structuredClone((await currentPolicies(t.db, 'acme')).find((view) => view.action === 'issue_refund')!);
  const [bound, rest] = entry.rules as [RoutingRule, RoutingRule];
  entry.rules = [{ ...bound, when: { ...bound.when!, above } }, rest];
  return { policies: [entry] };
}

const written = async () => ({
  policies: (await t.db.select({ n: count() }).from(policies))[0]!.n,
  events: (await t.db.select({ n: count() }).from(auditEvents))[0]!.n,
});

describe('plan: the change in words and the backtest', () => {
  const ids: Record<string, string> = {};

  it('lists exactly the proposals whose routing a lower bound flips, in their tenant only, writing nothing', async () => {
    // acme's bound: refunds above 100.00 on one order in 24 h need two approvers.
    ids.small = await refund(seeded.acme, 'ord_q5001', 3000);
    ids.middle = await refund(seeded.acme, 'ord_q5002', 6000);
    ids.upper = await refund(seeded.acme, 'ord_q5003', 9000);
    ids.big = await refund(seeded.acme, 'ord_q5004', 12000);
    // Two of 40.00 on one order: only the second sums above 50.00.
    ids.split1 = await refund(seeded.acme, 'ord_q5005', 4000);
    ids.split2 = await refund(seeded.acme, 'ord_q5005', 4000);
    await refund(seeded.globex, 'ord_9001', 9000, 'USD');
    const before = await written();

    const plan = await planPolicies(t.db, 'acme', await refundDraft(5000), 30);
    expect(plan.changes).toEqual([
      // Every refund of the period is in EUR: the bound in euros, with its minor units.
      {
        action: 'issue_refund',
        version: 2,
        nextVersion: 3,
        words: [
          expect.stringMatching(
            /^Rule refunds-over-100: When amountMinor .* is above 50\.00 EUR \(5000 minor units\) → needs 2 distinct approvers \(was above 100\.00 EUR \(10000 minor units\)\)\.$/,
          ),
        ],
      },
    ]);
    // Both descriptions and both ids still name 100.00: warned, ids not renamed.
    expect(plan.warnings).toEqual([
      {
        action: 'issue_refund',
        ruleId: 'refunds-over-100',
        message: 'Rule refunds-over-100: The description says 100.00, but the bound is 50.00 EUR (5000 minor units).',
      },
      {
        action: 'issue_refund',
        ruleId: 'refunds-over-100',
        message: expect.stringMatching(
          /^Rule refunds-over-100: The id refunds-over-100 names 100, .* Ids are not renamed, since past proposals cite them/,
        ),
      },
      {
        action: 'issue_refund',
        ruleId: 'refunds-up-to-100',
        message:
          'Rule refunds-up-to-100: The description says 100.00, but the rules before it are bounded at 50.00 EUR ' +
          '(5000 minor units).',
      },
      {
        action: 'issue_refund',
        ruleId: 'refunds-up-to-100',
        message: expect.stringMatching(/^Rule refunds-up-to-100: The id refunds-up-to-100 names 100, /),
      },
    ]);
    expect(plan.backtest).toMatchObject({ days: 30, proposals: 6, truncated: false, limit: 10_000 });
    const oneToTwo = {
      before: { rule: 'refunds-up-to-100', outcome: 'needs_approval', approvals: 1, role: 'approver' },
      after: { rule: 'refunds-over-100', outcome: 'needs_approval', approvals: 2, role: 'approver' },
    };
    expect(plan.backtest.flips).toEqual([
      {
        proposalId: ids.middle,
        action: 'issue_refund',
        createdAt: expect.any(String),
        summary: 'issue_refund on ord_q5002',
        ...oneToTwo,
      },
      {
        proposalId: ids.upper,
        action: 'issue_refund',
        createdAt: expect.any(String),
        summary: 'issue_refund on ord_q5003',
        ...oneToTwo,
      },
      {
        proposalId: ids.split2,
        action: 'issue_refund',
        createdAt: expect.any(String),
        summary: 'issue_refund on ord_q5005',
        ...oneToTwo,
      },
    ]);
    expect(JSON.stringify(plan)).not.toContain('Partial refund');
    expect(await written()).toEqual(before);

    // globex's own plan replays its own proposal only.
    const globex = structuredClone(
      (await currentPolicies(t.db, 'globex')).find((view) => view.action === 'issue_refund')!,
    );
    globex.rules = [{ ...globex.rules[0]!, when: { ...globex.rules[0]!.when!, above: 5000 } }, globex.rules[1]!];
    const theirs = await planPolicies(t.db, 'globex', { policies: [globex] }, 30);
    expect(theirs.backtest.proposals).toBe(1);
    expect(theirs.backtest.flips.map((flip) => flip.summary)).toEqual(['issue_refund on ord_9001']);
  });

  it('flips auto-approve and deny both ways, and leaves an unchanged action out', async () => {
    const {
      policies: [entry],
    } = await refundDraft(10000);
    entry!.rules = [
      {
        id: 'deny-big',
        description: 'Refunds above 100.00 are denied',
        when: { field: 'amountMinor', above: 10000 },
        outcome: 'deny',
        approvals: 0,
        role: 'approver',
      },
      {
        id: 'auto-small',
        description: 'Refunds below 50.00 run at once',
        when: { field: 'amountMinor', below: 5000 },
        outcome: 'auto_approve',
        approvals: 0,
        role: 'approver',
      },
      {
        id: 'one',
        description: 'Others need one approver',
        when: null,
        outcome: 'needs_approval',
        approvals: 1,
        role: 'approver',
      },
    ];
    const hold = (await currentPolicies(t.db, 'acme')).find((view) => view.action === 'hold_stock')!;
    const plan = await planPolicies(t.db, 'acme', { policies: [hold, entry], note: 'Deny big refunds' }, 30);
    expect(plan.changes.map((change) => change.action)).toEqual(['issue_refund']);
    expect(plan.warnings).toEqual([]);
    const byId = new Map(plan.backtest.flips.map((flip) => [flip.proposalId, flip.after.outcome]));
    expect(byId).toEqual(
      new Map([
        [ids.small, 'auto_approve'],
        [ids.big, 'deny'],
        [ids.split1, 'auto_approve'],
        [ids.split2, 'auto_approve'],
      ]),
    );
  });

  it('replays only the last `days` days, the newest `limit` at most, saying so', async () => {
    const later = new Date(Date.now() + 40 * 86_400_000);
    expect((await planPolicies(t.db, 'acme', await refundDraft(5000), 30, later)).backtest).toMatchObject({
      proposals: 0,
      flips: [],
    });
    expect((await planPolicies(t.db, 'acme', await refundDraft(5000), 60, later)).backtest).toMatchObject({
      proposals: 6,
    });

    // No proposal in the period, so no currency known: the bound in minor units, and a description is read in any
    // currency's decimals.
    const unknown = await planPolicies(t.db, 'acme', await refundDraft(5000), 30, later);
    expect(unknown.changes[0]!.words).toEqual([
      expect.stringMatching(/is above 5000 minor units → .* \(was above 10000 minor units\)\.$/),
    ]);
    expect(unknown.warnings.map((warning) => warning.ruleId)).toEqual([
      'refunds-over-100',
      'refunds-over-100',
      'refunds-up-to-100',
      'refunds-up-to-100',
    ]);
    const expiryOnly = {
      policies: (await refundDraft(10000)).policies.map((entry) => ({ ...entry, expiryHours: entry.expiryHours + 1 })),
    };
    expect((await planPolicies(t.db, 'acme', expiryOnly, 30, later)).warnings).toEqual([]);

    const action = findAction('issue_refund')!;
    const current = await loadPolicy(t.db, 'acme', action);
    const draft = {
      ...current,
      version: current.version + 1,
      rules: current.rules!.map((rule) => (rule.when ? { ...rule, when: { ...rule.when, above: 5000 } } : rule)),
    };
    const capped = await backtest(t.db, 'acme', new Map([['issue_refund', { current, draft }]]), 30, new Date(), 2);
    expect(capped).toMatchObject({ proposals: 2, limit: 2, truncated: true });
    // The newest two: split1 does not flip, split2 (summed with split1) does.
    expect(capped.flips.map((flip) => flip.proposalId)).toEqual([ids.split2]);
  });

  it('refuses what PUT refuses, a stale version, and a period outside 1–365 days', async () => {
    const before = await written();
    const bad = await refundDraft(-1);
    const error = await expectApiError(planPolicies(t.db, 'acme', bad, 30), {
      status: 422,
      code: 'invalid_policy',
      kind: 'schema',
    });
    expect(error.details.issues).toContainEqual(
      expect.objectContaining({ field: 'policies.0.rules.0.when.above', code: 'too_small' }),
    );
    const blank = await expectApiError(planPolicies(t.db, 'acme', { ...(await refundDraft(5000)), note: ' ' }, 30), {
      status: 422,
      code: 'invalid_policy',
    });
    expect(blank.details.issues).toEqual([expect.objectContaining({ field: 'note' })]);
    const stale = await refundDraft(5000);
    stale.policies[0]!.version = 1;
    await expectApiError(planPolicies(t.db, 'acme', stale, 30), { status: 409, code: 'stale_policy' });
    expect(await written()).toEqual(before);

    expect([backtestDays(null), backtestDays('1'), backtestDays('365')]).toEqual([30, 1, 365]);
    for (const days of ['0', '366', '-1', '1.5', 'abc', '', '0030', '1e2']) {
      const refused = await expectApiError(
        Promise.resolve().then(() => backtestDays(days)),
        { status: 422, code: 'invalid_days' },
      );
      expect(refused.details.issues).toEqual([expect.objectContaining({ field: 'days' })]);
    }
  });
});
