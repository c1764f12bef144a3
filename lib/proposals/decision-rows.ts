import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { decisions, users } from '@/db/schema';

/** The decisions on one proposal, oldest first, with each decider's name. */
export type DecisionRow = { decision: 'approve' | 'reject'; userId: string; userName: string; reason: string | null; createdAt: Date };

export async function decisionsFor(db: Database, tenantId: string, proposalId: string): Promise<DecisionRow[]> {
  return db
    .select({
      decision: decisions.decision,
      userId: decisions.userId,
      userName: users.name,
      reason: decisions.reason,
      createdAt: decisions.createdAt,
    })
    .from(decisions)
    .innerJoin(users, eq(users.id, decisions.userId))
    .where(and(eq(decisions.tenantId, tenantId), eq(decisions.proposalId, proposalId)))
    .orderBy(asc(decisions.createdAt));
}

