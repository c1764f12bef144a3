import { describe, expect, it } from 'vitest';
import type { RoutingRule } from '@/lib/routing-rules';
import { draftOf, ruleOf } from './policy-rule';

const signed: RoutingRule = {
  id: 'big',
  description: 'Big holds signed',
  when: { field: 'quantity', above: 3 },
  outcome: 'needs_approval',
  approvals: 1,
  role: 'approver',
  passkey: true,
};

describe('a rule through the policy form', () => {
  it('keeps "passkey": true, and a rule without it stays without', () => {
    expect(ruleOf(draftOf(signed))).toEqual(signed);
    const plain: RoutingRule = {
      id: 'rest',
      description: 'The rest',
      when: null,
      outcome: 'needs_approval',
      approvals: 1,
      role: 'approver',
    };
    expect(ruleOf(draftOf(plain))).toEqual(plain);
  });

  it('drops the passkey when the outcome asks nobody', () => {
    expect(ruleOf({ ...draftOf(signed), outcome: 'deny', approvals: '0' })).not.toHaveProperty('passkey');
  });
});
