import { describe, expect, it } from 'vitest';
import type { RoutingRule } from '@/lib/routing-rules';
import { changesInWords, diffRules, ruleInWords } from './words';

const one: RoutingRule = { id: 'one', description: 'One approver', when: null, outcome: 'needs_approval', approvals: 1, role: 'approver' };
const denyBig: RoutingRule = { id: 'big', description: 'No big holds', when: { field: 'quantity', above: 3 }, outcome: 'deny', approvals: 0, role: 'approver' };

describe('policies in words', () => {
  it.each([
    [one, 'Always → needs 1 distinct approver'],
    [denyBig, 'When quantity is above 3 → deny'],
    [{ ...one, when: { field: 'quantity', below: 2 }, outcome: 'auto_approve', approvals: 0 } as RoutingRule, 'When quantity is below 2 → auto-approve'],
    [
      { ...one, when: { field: 'amountMinor', above: 10000, aggregate: { windowHours: 24 } }, approvals: 2 } as RoutingRule,
      "When amountMinor summed with this action's open and executed proposals on the same resource in the last 24 h is above 10000 → needs 2 distinct approvers",
    ],
  ])('%#: %s', (rule, words) => {
    expect(ruleInWords(rule)).toBe(words);
  });

  it('diffs by rule id: added, changed, moved, removed', () => {
    const lines = diffRules([one, denyBig], [{ ...denyBig, when: { field: 'quantity', above: 2 } }, one, { ...one, id: 'new' }]);
    expect(lines.map((line) => [line.kind, line.id])).toEqual([['changed', 'big'], ['moved', 'one'], ['added', 'new']]);
    expect(diffRules([one, denyBig], [one])).toEqual([
      { kind: 'same', id: 'one', before: expect.any(String), after: expect.any(String) },
      { kind: 'removed', id: 'big', before: 'When quantity is above 3 → deny (“No big holds”)' },
    ]);
  });

  it('words a change as sentences: each changed, added, moved or removed rule, and the expiry', () => {
    const words = changesInWords({ rules: [one, denyBig], expiryHours: 24 }, { rules: [{ ...denyBig, when: { field: 'quantity', above: 2 } }, { ...one, id: 'new' }], expiryHours: 12 });
    expect(words).toEqual([
      'Rule big becomes: When quantity is above 2 → deny (“No big holds”) (was: When quantity is above 3 → deny (“No big holds”)).',
      'Adds rule new: Always → needs 1 distinct approver (“One approver”).',
      'Removes rule one: Always → needs 1 distinct approver (“One approver”).',
      'Proposals expire after 12 h (was 24 h).',
    ]);
    expect(changesInWords({ rules: [one, denyBig], expiryHours: 24 }, { rules: [denyBig, one], expiryHours: 24 })).toEqual(['Rule big moves to position 1 (was 2).', 'Rule one moves to position 2 (was 1).']);
  });
});
