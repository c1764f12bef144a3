import { describe, expect, it } from 'vitest';
import { type RoutingRule, routingRulesSchema } from '@/lib/routing-rules';
import { aggregateKey, type PriorTotal } from './aggregate';
import { aggregateNeeds, type LoadedPolicy, routeProposal } from './routing';

const twoAbove100: RoutingRule = {
  id: 'over-100',
  description: 'Above 100.00 per order in 24 h',
  when: { field: 'amountMinor', above: 10000, aggregate: { windowHours: 24 } },
  outcome: 'needs_approval',
  approvals: 2,
  role: 'approver',
};
const oneForTheRest: RoutingRule = {
  id: 'rest',
  description: 'The rest',
  when: null,
  outcome: 'needs_approval',
  approvals: 1,
  role: 'approver',
};
const policy = (rules: RoutingRule[] | null): LoadedPolicy => ({ version: 7, rules, expiryHours: 24 });
const priors = (entries: [number, string, PriorTotal][]) =>
  new Map(entries.map(([windowHours, field, total]) => [aggregateKey({ field, windowHours }), total]));

describe('routing rules are validated data', () => {
  it.each([
    ['a plain bound', { ...oneForTheRest, when: { field: 'quantity', above: 3 } }],
    ['an aggregate bound', twoAbove100],
    ['an auto-approve with no approvers', { ...oneForTheRest, outcome: 'auto_approve', approvals: 0 }],
    ['a lower bound', { ...oneForTheRest, when: { field: 'quantity', below: 2 } }],
    ['five approvers', { ...oneForTheRest, approvals: 5 }],
    ['approvals signed with a passkey', { ...oneForTheRest, passkey: true }],
  ])('accepts %s', (_name, rule) => {
    expect(routingRulesSchema.safeParse([rule]).success).toBe(true);
  });

  it.each([
    ['a passkey on a rule that asks nobody', { ...oneForTheRest, outcome: 'deny', approvals: 0, passkey: true }],
    ['a passkey that is not true', { ...oneForTheRest, passkey: false }],
    [
      'a window of zero hours',
      { ...twoAbove100, when: { field: 'amountMinor', above: 10000, aggregate: { windowHours: 0 } } },
    ],
    [
      'a fractional window',
      { ...twoAbove100, when: { field: 'amountMinor', above: 10000, aggregate: { windowHours: 1.5 } } },
    ],
    [
      'a window as a string',
      { ...twoAbove100, when: { field: 'amountMinor', above: 10000, aggregate: { windowHours: '24' } } },
    ],
    [
      'an unknown key in the aggregate',
      { ...twoAbove100, when: { field: 'amountMinor', above: 10000, aggregate: { windowHours: 24, scope: 'tenant' } } },
    ],
    ['an unknown key in the bound', { ...twoAbove100, when: { field: 'amountMinor', above: 10000, below: 5 } }],
    ['a field that is a path', { ...twoAbove100, when: { field: 'args.amountMinor', above: 10000 } }],
    ['a bound as a string', { ...twoAbove100, when: { field: 'amountMinor', above: '10000' } }],
    ['a quorum of zero', { ...twoAbove100, approvals: 0 }],
    ['an unknown outcome', { ...twoAbove100, outcome: 'maybe' }],
    ['six approvers', { ...twoAbove100, approvals: 6 }],
    ['a negative bound', { ...twoAbove100, when: { field: 'amountMinor', above: -1 } }],
    ['a bound with neither above nor below', { ...twoAbove100, when: { field: 'amountMinor' } }],
    [
      'an aggregate with a lower bound',
      { ...twoAbove100, when: { field: 'amountMinor', below: 100, aggregate: { windowHours: 24 } } },
    ],
    ['a deny that asks for approvers', { ...twoAbove100, outcome: 'deny', approvals: 1 }],
  ])('refuses %s', (_name, rule) => {
    expect(routingRulesSchema.safeParse([rule]).success).toBe(false);
  });
});

it('two rules cannot share an id (the proposal page names its rule by id)', () => {
  expect(routingRulesSchema.safeParse([oneForTheRest, oneForTheRest]).success).toBe(false);
});

it('a lower bound matches values strictly below it', () => {
  const small: RoutingRule = {
    id: 'small',
    description: 'Small holds go through',
    when: { field: 'quantity', below: 2 },
    outcome: 'auto_approve',
    approvals: 0,
    role: 'approver',
  };
  expect(routeProposal(policy([small, oneForTheRest]), { quantity: 1 })).toMatchObject({
    rule: 'small',
    outcome: 'auto_approve',
  });
  expect(routeProposal(policy([small, oneForTheRest]), { quantity: 2 })).toMatchObject({
    rule: 'rest',
    outcome: 'needs_approval',
  });
});

describe('routeProposal with an aggregate bound', () => {
  const demo = policy([twoAbove100, oneForTheRest]);

  it('asks for the sums its aggregate bounds need', () => {
    expect(aggregateNeeds(demo)).toEqual([{ field: 'amountMinor', windowHours: 24 }]);
    expect(aggregateNeeds(policy([oneForTheRest]))).toEqual([]);
    expect(aggregateNeeds(policy(null))).toEqual([]);
  });

  it.each([
    { amount: 10000, prior: { count: 0, sum: 0 }, rule: 'over-100', approvals: 2, matches: false },
    { amount: 10001, prior: { count: 0, sum: 0 }, rule: 'over-100', approvals: 2, matches: true },
    { amount: 5000, prior: { count: 1, sum: 5000 }, rule: 'rest', approvals: 1, matches: false },
    { amount: 5000, prior: { count: 1, sum: 5001 }, rule: 'over-100', approvals: 2, matches: true },
    { amount: 1, prior: { count: 3, sum: 30000 }, rule: 'over-100', approvals: 2, matches: true },
  ])('amount $amount after $prior.count earlier summing $prior.sum', ({ amount, prior, matches }) => {
    const routing = routeProposal(demo, { amountMinor: amount }, priors([[24, 'amountMinor', prior]]));
    expect(routing).toEqual({
      rule: matches ? 'over-100' : 'rest',
      policyVersion: 7,
      outcome: 'needs_approval',
      approvals: matches ? 2 : 1,
      role: 'approver',
      // The first aggregate evaluated is kept even when a later rule decides.
      aggregate: {
        field: 'amountMinor',
        windowHours: 24,
        priorCount: prior.count,
        priorSum: prior.sum,
        total: amount + prior.sum,
      },
    });
  });

  it('refuses to route without the sum a bound needs (never guesses zero)', () => {
    expect(() => routeProposal(demo, { amountMinor: 1 })).toThrow(/24h\/amountMinor/);
  });

  it('a field that is not a number matches no bound, and no rule at all denies', () => {
    expect(
      routeProposal(
        policy([twoAbove100]),
        { amountMinor: '20000' },
        priors([[24, 'amountMinor', { count: 0, sum: 0 }]]),
      ),
    ).toEqual({
      rule: 'no-matching-rule',
      policyVersion: 7,
      outcome: 'deny',
      approvals: 0,
      role: 'admin',
    });
  });

  it('an invalid policy denies everything', () => {
    expect(routeProposal(policy(null), { amountMinor: 1 })).toMatchObject({ rule: 'invalid-policy', outcome: 'deny' });
  });
});

describe('a rule that asks for a passkey', () => {
  it('routes with passkey: true, and other rules without it', () => {
    const signed: RoutingRule = { ...oneForTheRest, id: 'big', when: { field: 'quantity', above: 3 }, passkey: true };
    expect(routeProposal(policy([signed, oneForTheRest]), { quantity: 4 })).toMatchObject({
      rule: 'big',
      passkey: true,
    });
    expect(routeProposal(policy([signed, oneForTheRest]), { quantity: 2 })).not.toHaveProperty('passkey');
  });
});
