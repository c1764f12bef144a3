import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ViewerRights } from '@/lib/decisions/viewer-rights';
import type { DecisionRow } from '@/lib/proposals/decision-rows';
import type { ProposalWording } from '@/lib/proposals/wording';
import type { Proposal } from '@/lib/records';
import { ProposalDecision } from './proposal-decision';

vi.mock('next/navigation', () => ({ useRouter: () => ({ refresh: vi.fn(), push: vi.fn() }) }));

const now = new Date('2026-12-07T10:00:00.000Z');
const proposal = {
  id: 'prp_00000000000000000001',
  status: 'pending_approval',
  payloadHash: `sha256:${'0'.repeat(64)}`,
  routing: { rule: 'refunds-over-100', policyVersion: 2, outcome: 'needs_approval', approvals: 2, role: 'approver' },
  expiresAt: new Date('2026-12-08T10:00:00.000Z'),
  extendedAt: null,
  decidedAt: null,
  grantId: null,
  statusReason: null,
  flags: [],
} as unknown as Proposal;
const rights: ViewerRights = {
  role: 'approver',
  mayDecide: true,
  hasDecided: true,
  initiator: false,
  canReject: false,
  canApprove: false,
  canExtend: false,
  extendByHours: 24,
  canEdit: true,
};
const wording = {
  summary: 'Refund 150.00 EUR',
  approveLabel: 'Approve refund',
  argHints: {},
  receiptNoun: 'refund',
} as unknown as ProposalWording;

const bob: DecisionRow = {
  decision: 'approve',
  userId: 'usr_bob',
  userName: 'Bob',
  reason: null,
  createdAt: new Date('2026-12-07T09:00:00.000Z'),
  withdrawn: { at: new Date('2026-12-07T09:30:00.000Z'), reason: 'role_changed', role: 'viewer' },
};
const alice: DecisionRow = {
  decision: 'approve',
  userId: 'usr_alice',
  userName: 'Alice',
  reason: null,
  createdAt: new Date('2026-12-07T09:45:00.000Z'),
  withdrawn: null,
};

describe('ProposalDecision', () => {
  it('says in words whose approval was withdrawn and why, and counts only the approvals that stand', () => {
    render(
      <ProposalDecision
        proposal={proposal}
        decisions={[bob, alice]}
        wording={wording}
        rights={rights}
        role="approver"
        nextId={null}
        now={now}
        extendedBy={null}
      />,
    );
    expect(screen.getByTestId('approval-withdrawn').textContent).toMatch(
      /^Bob's approval was withdrawn: their role changed to viewer · .+\. It no longer counts\.$/,
    );
    expect(screen.getAllByTestId('approval-withdrawn')).toHaveLength(1);
    expect(screen.getByTestId('approval-progress').textContent).toBe('1 of 2 approvals');
  });

  it('says so for someone removed from the tenant', () => {
    render(
      <ProposalDecision
        proposal={proposal}
        decisions={[{ ...bob, withdrawn: { ...bob.withdrawn!, reason: 'removed', role: null } }]}
        wording={wording}
        rights={rights}
        role="approver"
        nextId={null}
        now={now}
        extendedBy={null}
      />,
    );
    expect(screen.getByTestId('approval-withdrawn').textContent).toMatch(
      /^Bob's approval was withdrawn: they were removed from the tenant/,
    );
    expect(screen.getByTestId('approval-progress').textContent).toBe('0 of 2 approvals');
  });
});
