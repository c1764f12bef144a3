import 'server-only';
import type { Proposal, Role } from '@/db/schema';
import { roleAtLeast } from '@/lib/auth/roles';
import type { DecisionRow } from '@/lib/proposals/decision-rows';
import { grantedDuration } from './extend';

/** Who is looking: one member of the proposal's tenant, with their role there. */
export type Viewer = { userId: string; role: Role };

/**
 * What one operator may do with a proposal (docs/design.md §6), computed here once for the proposal
 * page and `GET /api/v1/proposals/:id`. The domain functions (decide, extendExpiry, reviseProposal)
 * check the same rules again, under lock, when the operator acts.
 */
export type ViewerRights = {
  role: Role;
  /** Their role is the one the routing rule names, or above (admins may decide too). */
  mayDecide: boolean;
  hasDecided: boolean;
  /** The agent acts for them, or they edited this proposal or a revision before it: reject only. */
  initiator: boolean;
  /** Pending, not overdue, they may decide and have not yet. */
  canReject: boolean;
  /** As canReject, and not an initiator (lib/decisions/initiators.ts). */
  canApprove: boolean;
  /** Once, before expiry, by whoever may decide it. */
  canExtend: boolean;
  /** The time an extension adds: the duration first granted, in hours. */
  extendByHours: number;
  /** Editing makes a revision: a pending proposal, by whoever may decide it. */
  canEdit: boolean;
};

export function viewerRights(
  proposal: Pick<Proposal, 'status' | 'expiresAt' | 'createdAt' | 'extendedAt' | 'routing'>,
  decisions: Pick<DecisionRow, 'userId'>[],
  viewer: Viewer,
  initiators: ReadonlySet<string>,
  now: Date,
): ViewerRights {
  const pending = proposal.status === 'pending_approval';
  const open = pending && proposal.expiresAt.getTime() > now.getTime();
  const mayDecide = roleAtLeast(viewer.role, proposal.routing.role);
  const hasDecided = decisions.some((d) => d.userId === viewer.userId);
  const initiator = initiators.has(viewer.userId);
  const canReject = open && mayDecide && !hasDecided;
  return {
    role: viewer.role,
    mayDecide,
    hasDecided,
    initiator,
    canReject,
    canApprove: canReject && !initiator,
    canExtend: open && mayDecide && proposal.extendedAt === null,
    extendByHours: Math.round(grantedDuration(proposal) / 3_600_000),
    canEdit: pending && mayDecide,
  };
}
