import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { decisions, type Role, users } from '@/db/schema';

/** Why and when an approval stopped counting (lib/decisions/quorum.ts); `role` is null when they were removed. */
export type Withdrawn = { at: Date; reason: 'role_changed' | 'removed'; role: Role | null };

/** The decisions on one proposal, oldest first, with each decider's name. */
export type DecisionRow = {
  decision: 'approve' | 'reject';
  userId: string;
  userName: string;
  reason: string | null;
  createdAt: Date;
  withdrawn: Withdrawn | null;
};

export async function decisionsFor(db: Database, tenantId: string, proposalId: string): Promise<DecisionRow[]> {
  const rows = await db
    .select({
      decision: decisions.decision,
      userId: decisions.userId,
      userName: users.name,
      reason: decisions.reason,
      createdAt: decisions.createdAt,
      withdrawnAt: decisions.withdrawnAt,
      withdrawnReason: decisions.withdrawnReason,
      withdrawnRole: decisions.withdrawnRole,
    })
    .from(decisions)
    .innerJoin(users, eq(users.id, decisions.userId))
    .where(and(eq(decisions.tenantId, tenantId), eq(decisions.proposalId, proposalId)))
    .orderBy(asc(decisions.createdAt));
  return rows.map(({ withdrawnAt, withdrawnReason, withdrawnRole, ...row }) => ({
    ...row,
    withdrawn:
      withdrawnAt && withdrawnReason ? { at: withdrawnAt, reason: withdrawnReason, role: withdrawnRole } : null,
  }));
}
