import { describe, expect, it } from 'vitest';
import type { RoutingRule } from '@/lib/routing-rules';
import {
  changesInWords,
  describeRule,
  descriptionMismatch,
  diffRules,
  idMismatch,
  ruleInWords,
  ruleWarnings,
} from './policy-words';

const one: RoutingRule = {
  id: 'one',
  description: 'One approver',
  when: null,
  outcome: 'needs_approval',
  approvals: 1,
  role: 'approver',
};
const denyBig: RoutingRule = {
  id: 'big',
  description: 'No big holds',
  when: { field: 'quantity', above: 3 },
  outcome: 'deny',
  approvals: 0,
  role: 'approver',
};

describe('policies in words', () => {
  it.each([
    [one, 'Always → needs 1 distinct approver'],
    [denyBig, 'When quantity is above 3 → deny'],
    [
      { ...one, when: { field: 'quantity', below: 2 }, outcome: 'auto_approve', approvals: 0 } as RoutingRule,
      'When quantity is below 2 → auto-approve',
    ],
    [
      {
        ...one,
        when: { field: 'amountMinor', above: 10000, aggregate: { windowHours: 24 } },
        approvals: 2,
      } as RoutingRule,
      "When amountMinor summed with this action's open and executed proposals on the same resource in the last 24 h is above 10000 → needs 2 distinct approvers",
    ],
  ])('%#: %s', (rule, words) => {
    expect(ruleInWords(rule)).toBe(words);
  });

  it('diffs by rule id: added, changed, moved, removed', () => {
    const lines = diffRules(
      [one, denyBig],
      [{ ...denyBig, when: { field: 'quantity', above: 2 } }, one, { ...one, id: 'new' }],
    );
    expect(lines.map((line) => [line.kind, line.id])).toEqual([
      ['changed', 'big'],
      ['moved', 'one'],
      ['added', 'new'],
    ]);
    expect(diffRules([one, denyBig], [one])).toEqual([
      { kind: 'same', id: 'one', before: expect.any(String), after: expect.any(String) },
      { kind: 'removed', id: 'big', before: 'When quantity is above 3 → deny (“No big holds”)' },
    ]);
  });

  it('words a change as sentences: each changed, added, moved or removed rule, and the expiry', () => {
    const words = changesInWords(
      { rules: [one, denyBig], expiryHours: 24 },
      {
        rules: [
          { ...denyBig, when: { field: 'quantity', above: 2 } },
          { ...one, id: 'new' },
        ],
        expiryHours: 12,
      },
    );
    expect(words).toEqual([
      'Rule big: When quantity is above 2 → deny (was above 3).',
      'Rule big moves to position 1 (was 2).',
      'Adds rule new: Always → needs 1 distinct approver (“One approver”).',
      'Removes rule one: Always → needs 1 distinct approver (“One approver”).',
      'Proposals expire after 12 h (was 24 h).',
    ]);
    expect(
      changesInWords({ rules: [one, denyBig], expiryHours: 24 }, { rules: [denyBig, one], expiryHours: 24 }),
    ).toEqual(['Rule big moves to position 1 (was 2).', 'Rule one moves to position 2 (was 1).']);
    expect(
      changesInWords(
        { rules: [denyBig], expiryHours: 24 },
        {
          rules: [{ ...denyBig, outcome: 'needs_approval', approvals: 2, description: 'Big holds need two' }],
          expiryHours: 24,
        },
      ),
    ).toEqual([
      'Rule big becomes: When quantity is above 3 → needs 2 distinct approvers (was: When quantity is above 3 → deny).',
      'Rule big is described as “Big holds need two” (was “No big holds”).',
    ]);
  });

  it('writes money bounds in major units beside the currency when told how, and flags a description naming another amount', () => {
    const euros = (field: string, value: number) =>
      field === 'amountMinor' ? `${(value / 100).toFixed(2)} EUR` : String(value);
    const refunds: RoutingRule = {
      id: 'refunds-over-100',
      description: 'Refunds above 100.00 per order in 24 h need two approvers',
      when: { field: 'amountMinor', above: 5000, aggregate: { windowHours: 24 } },
      outcome: 'needs_approval',
      approvals: 2,
      role: 'approver',
    };
    expect(ruleInWords(refunds, euros)).toContain('is above 50.00 EUR → needs 2 distinct approvers');
    expect(descriptionMismatch(refunds, euros)).toBe('The description says 100.00, but the bound is 50.00 EUR.');
    const before = { rules: [{ ...refunds, when: { ...refunds.when!, above: 10000 } }], expiryHours: 24 };
    expect(changesInWords(before, { rules: [refunds], expiryHours: 24 }, euros)).toEqual([
      "Rule refunds-over-100: When amountMinor summed with this action's open and executed proposals on the same resource in the last 24 h is above 50.00 EUR → needs 2 distinct approvers (was above 100.00 EUR).",
    ]);
    expect(descriptionMismatch({ ...refunds, description: 'Refunds above 50.00 per order in 24 h' }, euros)).toBeNull();
    expect(descriptionMismatch({ ...refunds, description: 'Refunds above 5000 minor units' }, euros)).toBeNull();
    expect(descriptionMismatch({ ...refunds, description: 'Big refunds need two approvers' }, euros)).toBeNull();
    expect(descriptionMismatch(denyBig)).toBeNull();
    expect(descriptionMismatch({ ...denyBig, description: 'Holds above 4 are denied' })).toBe(
      'The description says 4, but the bound is 3.',
    );
    expect(descriptionMismatch(one)).toBeNull();
    expect(describeRule(refunds, euros)).toBe(
      'amountMinor summed per resource over 24 h above 50.00 EUR: needs 2 distinct approvers',
    );
    expect(describeRule(denyBig)).toBe('quantity above 3: deny');
    expect(describeRule({ ...denyBig, when: { field: 'quantity', below: 2 }, outcome: 'auto_approve' })).toBe(
      'quantity below 2: auto-approve',
    );
    expect(describeRule(one)).toBe('Every proposal: needs 1 distinct approver');
    expect(descriptionMismatch({ ...refunds, description: describeRule(refunds, euros) }, euros)).toBeNull();
  });

  it('reads a rule with no bound against the bounds before it, flags ids naming another amount, and writes what the catch-all leaves', () => {
    const euros = (field: string, value: number) =>
      field === 'amountMinor' ? `${(value / 100).toFixed(2)} EUR` : String(value);
    const over: RoutingRule = {
      id: 'refunds-over-100',
      description: 'Refunds above 100.00 per order in 24 h need two approvers',
      when: { field: 'amountMinor', above: 10000, aggregate: { windowHours: 24 } },
      outcome: 'needs_approval',
      approvals: 2,
      role: 'approver',
    };
    const rest: RoutingRule = {
      id: 'refunds-up-to-100',
      description: 'Refunds up to 100.00 per order in 24 h need one approver',
      when: null,
      outcome: 'needs_approval',
      approvals: 1,
      role: 'approver',
    };
    // As seeded: everything agrees, in major units, in minor units, and with "100" for 100.00.
    expect(ruleWarnings([over, rest], euros)).toEqual([]);
    // Read as stored only, "100.00" and "100" are not 10000; another reading (a currency's decimals) that accepts them
    // clears them.
    expect(ruleWarnings([over, rest])).toHaveLength(4);
    expect(ruleWarnings([over, rest], undefined, [euros])).toEqual([]);
    expect(
      descriptionMismatch({ ...rest, description: 'Refunds up to 100 need one approver' }, euros, [over]),
    ).toBeNull();

    const lowered: RoutingRule = { ...over, when: { ...over.when!, above: 5000 } };
    expect(descriptionMismatch(rest, euros, [lowered])).toBe(
      'The description says 100.00, but the rules before it are bounded at 50.00 EUR.',
    );
    expect(descriptionMismatch(rest, euros)).toBeNull();
    expect(idMismatch(lowered, euros)).toBe(
      'The id refunds-over-100 names 100, but the bound is 50.00 EUR. Ids are not renamed, since past proposals ' +
        'cite them: add a rule with a new id and remove this one to change it.',
    );
    expect(idMismatch(rest, euros, [lowered])).toMatch(
      /^The id refunds-up-to-100 names 100, but the rules before it are bounded at 50.00 EUR\. Ids are not renamed/,
    );
    expect(idMismatch({ ...rest, id: 'rule-3', approvals: 2 }, euros, [lowered])).toBeNull();
    expect(ruleWarnings([lowered, rest], euros).map((warning) => warning.message)).toEqual([
      'Rule refunds-over-100: The description says 100.00, but the bound is 50.00 EUR.',
      expect.stringMatching(/^Rule refunds-over-100: The id refunds-over-100 names 100, but the bound is 50.00 EUR\./),
      'Rule refunds-up-to-100: The description says 100.00, but the rules before it are bounded at 50.00 EUR.',
      expect.stringMatching(
        /^Rule refunds-up-to-100: The id refunds-up-to-100 names 100, but the rules before it are bounded at 50.00 EUR\./,
      ),
    ]);

    const rewritten = describeRule(rest, euros, [lowered]);
    expect(rewritten).toBe(
      'Every other proposal (amountMinor summed per resource over 24 h up to 50.00 EUR): needs 1 distinct approver',
    );
    expect(descriptionMismatch({ ...rest, description: rewritten }, euros, [lowered])).toBeNull();
    expect(describeRule(rest, euros, [{ ...denyBig, when: { field: 'quantity', below: 2 } }])).toBe(
      'Every other proposal (quantity 2 or more): needs 1 distinct approver',
    );
  });
});
