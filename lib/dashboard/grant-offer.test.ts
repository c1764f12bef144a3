import { describe, expect, it } from 'vitest';
import type { Proposal } from '@/db/schema';
import { grantOfferFor } from './grant-offer';

const routing: Proposal['routing'] = {
  rule: 'holds-one-approver',
  policyVersion: 2,
  outcome: 'needs_approval',
  approvals: 1,
  role: 'approver',
};

function hold(overrides: Partial<Proposal> = {}) {
  return {
    status: 'pending_approval' as const,
    action: 'hold_stock',
    agentKeyId: 'key_acme',
    agentName: 'acme-support-bot',
    routing,
    initiatedByUserId: null,
    resourceKey: 'sku:filter-gray',
    payload: {
      action: 'hold_stock',
      contractVersion: 1,
      tenantId: 'acme',
      evidenceRefs: [],
      args: { sku: 'filter-gray', quantity: 1 },
    } as Proposal['payload'],
    ...overrides,
  };
}

const may = { canApprove: true };

describe('grantOfferFor: the approve confirmation offers a grant only where the server could make one', () => {
  it('offers one for an agent’s waiting proposal routed to one approver without a passkey, narrowed to its resource', () => {
    expect(grantOfferFor(hold(), may, false)).toEqual({
      action: 'hold_stock',
      agentName: 'acme-support-bot',
      rule: 'holds-one-approver',
      resourceKey: 'sku:filter-gray',
      currency: null,
    });
  });

  it('names the currency of an action that moves money (the total cap is in it)', () => {
    const refund = hold({
      action: 'issue_refund',
      resourceKey: 'order:ord_1842',
      payload: {
        action: 'issue_refund',
        contractVersion: 1,
        tenantId: 'acme',
        evidenceRefs: [],
        args: { orderId: 'ord_1842', amountMinor: 4999, currency: 'EUR', reason: 'x' },
      } as Proposal['payload'],
    });
    expect(grantOfferFor(refund, may, false)?.currency).toBe('EUR');
  });

  it('offers none when the rule asks for two approvers', () => {
    expect(grantOfferFor(hold({ routing: { ...routing, approvals: 2 } }), may, false)).toBeUndefined();
  });

  it('offers none when the rule asks for a passkey, or the tenant requires one', () => {
    expect(grantOfferFor(hold({ routing: { ...routing, passkey: true } }), may, false)).toBeUndefined();
    expect(grantOfferFor(hold(), may, true)).toBeUndefined();
  });

  it('offers none for an operator’s revision, a proposal with no agent key, one no longer waiting, or a person who may not approve it', () => {
    expect(grantOfferFor(hold({ initiatedByUserId: 'usr_bob' }), may, false)).toBeUndefined();
    expect(grantOfferFor(hold({ agentKeyId: null }), may, false)).toBeUndefined();
    expect(grantOfferFor(hold({ status: 'approved' }), may, false)).toBeUndefined();
    expect(grantOfferFor(hold(), { canApprove: false }, false)).toBeUndefined();
  });
});
