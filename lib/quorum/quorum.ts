import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Database } from '@/db';
import { decisions, memberships, type Proposal, proposals, type Role, users } from '@/db/schema';
import { roleAtLeast } from '@/lib/auth/roles';
import { aboutProposal, recordStateChange } from '@/lib/events/record';

/**
 * An approval counts only while its approver may approve (docs/design.md §6): the quorum is the
 * number of distinct approvers whose approval stands (not withdrawn) and whose role in the tenant,
 * read now, is at least the rule's. A role change or removal withdraws that person's approvals on
 * waiting proposals in its own transaction (`withdrawApprovals`); the decision that completes a
 * quorum and the executor count again under lock (`standingApprovers`).
 */

type Quorum = Pick<Proposal, 'id' | 'tenantId' | 'routing'>;

/**
 * Locks FOR SHARE the memberships whose roles a decision relies on, in the order a role change
 * locks them (lib/admin/members.ts: every admin of the tenant by user id, then the one person), so
 * the two queue instead of deadlocking: a role change waits for the decision to commit, or the
 * decision waits for the change and reads the role it left. Answers each named person's role.
 */
export async function lockRoles(
  tx: Database,
  tenantId: string,
  userIds: readonly string[],
): Promise<Map<string, Role>> {
  await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.role, 'admin')))
    .orderBy(asc(memberships.userId))
    .for('share');
  if (userIds.length === 0) return new Map();
  const rows = await tx
    .select({ userId: memberships.userId, role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), inArray(memberships.userId, [...userIds])))
    .orderBy(asc(memberships.userId))
    .for('share');
  return new Map(rows.map((row) => [row.userId, row.role]));
}

const standingApprovals = (tx: Database, proposalId: string) =>
  tx
    .select({ userId: decisions.userId })
    .from(decisions)
    .where(and(eq(decisions.proposalId, proposalId), eq(decisions.decision, 'approve'), isNull(decisions.withdrawnAt)));

/**
 * The people whose approval of the proposal counts now. `lock` holds their memberships (FOR
 * SHARE) until the caller commits: the decision that completes a quorum and the executor pass it,
 * so no role change can land between this count and the command it lets through.
 */
export async function standingApprovers(tx: Database, proposal: Quorum, options: { lock: boolean }): Promise<string[]> {
  const approvers = (await standingApprovals(tx, proposal.id)).map((row) => row.userId);
  const roles = options.lock
    ? await lockRoles(tx, proposal.tenantId, approvers)
    : new Map(
        approvers.length === 0
          ? []
          : (
              await tx
                .select({ userId: memberships.userId, role: memberships.role })
                .from(memberships)
                .where(and(eq(memberships.tenantId, proposal.tenantId), inArray(memberships.userId, approvers)))
            ).map((row) => [row.userId, row.role]),
      );
  // Read again once the roles are held: a withdrawal that committed while this waited is seen.
  const standing = options.lock ? (await standingApprovals(tx, proposal.id)).map((row) => row.userId) : approvers;
  return standing.filter((userId) => {
    const role = roles.get(userId);
    return role !== undefined && roleAtLeast(role, proposal.routing.role);
  });
}

/**
 * How far the people's quorum falls short now, holding the roles it rests on until the caller
 * commits; undefined when it stands, or when no people's quorum applies (approved automatically by
 * policy, or under a standing grant). Minting and the executor ask this before any command.
 */
export async function quorumShortfall(
  tx: Database,
  proposal: Quorum & Pick<Proposal, 'grantId'>,
): Promise<{ standing: number; required: number } | undefined> {
  if (proposal.routing.outcome !== 'needs_approval' || proposal.grantId) return undefined;
  const standing = (await standingApprovers(tx, proposal, { lock: true })).length;
  return standing >= proposal.routing.approvals ? undefined : { standing, required: proposal.routing.approvals };
}

export type Withdrawal = {
  tenantId: string;
  userId: string;
  /** The role they now hold; null when they were removed from the tenant. */
  role: Role | null;
  by: { type: 'user' | 'system'; id: string };
};

/**
 * Withdraws the person's approvals on the tenant's waiting proposals whose rule their new role no
 * longer meets (all of them when removed), in the caller's transaction — the one that changed the
 * role, holding their membership locked. Each is audited `proposal.approval_withdrawn` on its
 * proposal with an outbox row like a decision's. Approved and later proposals are left as they are:
 * the executor re-checks those (lib/commands/execute.ts).
 */
export async function withdrawApprovals(tx: Database, input: Withdrawal, now = new Date()): Promise<string[]> {
  const approved = await tx
    .select({ decisionId: decisions.id, proposal: proposals, name: users.name })
    .from(decisions)
    .innerJoin(proposals, eq(proposals.id, decisions.proposalId))
    .innerJoin(users, eq(users.id, decisions.userId))
    .where(
      and(
        eq(decisions.tenantId, input.tenantId),
        eq(decisions.userId, input.userId),
        eq(decisions.decision, 'approve'),
        isNull(decisions.withdrawnAt),
        eq(proposals.status, 'pending_approval'),
      ),
    )
    .orderBy(asc(decisions.proposalId));
  const withdrawn: string[] = [];
  for (const { decisionId, proposal, name } of approved) {
    if (input.role !== null && roleAtLeast(input.role, proposal.routing.role)) continue;
    const reason = input.role === null ? 'removed' : 'role_changed';
    const [row] = await tx
      .update(decisions)
      .set({ withdrawnAt: now, withdrawnReason: reason, withdrawnRole: input.role })
      .where(and(eq(decisions.id, decisionId), isNull(decisions.withdrawnAt)))
      .returning({ id: decisions.id });
    if (!row) continue;
    withdrawn.push(proposal.id);
    const remaining = await standingApprovers(tx, proposal, { lock: false });
    await recordStateChange(tx, {
      ...aboutProposal(proposal),
      type: 'proposal.approval_withdrawn',
      actor: input.by,
      reasonCode: reason,
      data: {
        user: input.userId,
        name,
        role: input.role,
        approvals: remaining.length,
        required: proposal.routing.approvals,
      },
      occurredAt: now,
      outbox: {
        topic: 'proposal.decided',
        body: {
          proposalId: proposal.id,
          status: proposal.status,
          decision: 'withdrawn',
          payloadHash: proposal.payloadHash,
        },
      },
    });
  }
  return withdrawn;
}
