import { describe, expect, it } from 'vitest';
import type { Proposal } from '@/db/schema';
import { type Viewer, viewerRights } from './viewer-rights';

const NOW = new Date('2026-11-30T12:00:00.000Z');
const HOUR = 3_600_000;

function proposal(overrides: Partial<Pick<Proposal, 'status' | 'expiresAt' | 'createdAt' | 'extendedAt'>> = {}) {
  return {
    status: 'pending_approval' as const,
    createdAt: new Date(NOW.getTime() - HOUR),
    expiresAt: new Date(NOW.getTime() + 23 * HOUR),
    extendedAt: null,
    routing: { role: 'approver' } as Proposal['routing'],
    ...overrides,
  };
}

const alice: Viewer = { userId: 'usr_alice', role: 'approver' };
const none = new Set<string>();

describe('viewerRights: the decision rules the page and the API share', () => {
  it('an approver who has not decided may approve, reject, extend and edit', () => {
    expect(viewerRights(proposal(), [], alice, none, NOW)).toEqual({
      role: 'approver',
      mayDecide: true,
      hasDecided: false,
      initiator: false,
      canReject: true,
      canApprove: true,
      canExtend: true,
      extendByHours: 24,
      canEdit: true,
    });
  });

  it('an initiator of the chain may reject, never approve', () => {
    expect(viewerRights(proposal(), [], alice, new Set([alice.userId]), NOW)).toMatchObject({
      initiator: true,
      canReject: true,
      canApprove: false,
    });
  });

  it('a viewer decides, extends and edits nothing', () => {
    expect(viewerRights(proposal(), [], { userId: 'usr_dave', role: 'viewer' }, none, NOW)).toMatchObject({
      mayDecide: false,
      canReject: false,
      canApprove: false,
      canExtend: false,
      canEdit: false,
    });
  });

  it('an admin may decide what an approver may', () => {
    expect(viewerRights(proposal(), [], { userId: 'usr_carol', role: 'admin' }, none, NOW)).toMatchObject({
      mayDecide: true,
      canApprove: true,
    });
  });

  it('nobody decides twice', () => {
    expect(viewerRights(proposal(), [{ userId: alice.userId }], alice, none, NOW)).toMatchObject({
      hasDecided: true,
      canReject: false,
      canApprove: false,
      canExtend: true,
    });
  });

  it('an overdue proposal is decided and extended by nobody, but may still be edited until the sweep ends it', () => {
    expect(viewerRights(proposal({ expiresAt: new Date(NOW.getTime() - 1) }), [], alice, none, NOW)).toMatchObject({
      canReject: false,
      canApprove: false,
      canExtend: false,
      canEdit: true,
    });
  });

  it('an extended proposal is not extended again', () => {
    expect(viewerRights(proposal({ extendedAt: new Date(NOW.getTime() - HOUR) }), [], alice, none, NOW)).toMatchObject({
      canExtend: false,
      canApprove: true,
    });
  });

  it.each(['approved', 'rejected', 'expired', 'cancelled', 'succeeded'] as const)(
    'a %s proposal offers nothing',
    (status) => {
      expect(viewerRights(proposal({ status }), [], alice, none, NOW)).toMatchObject({
        canReject: false,
        canApprove: false,
        canExtend: false,
        canEdit: false,
      });
    },
  );
});
