import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '@/db';
import { agentKeys, decisions, memberships, outbox, proposals, type Proposal } from '@/db/schema';
import { appendAudit } from '@/lib/audit/append';
import { ApiError, notFound } from '@/lib/http/errors';
import { newId } from '@/lib/ids';
import { payloadHash } from '@/lib/payload-hash';
import { roleAtLeast } from '@/lib/auth/roles';

export const decisionRequestSchema = z
  .strictObject({
    decision: z.enum(['approve', 'reject']),
    payloadHash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a payload hash like sha256:<64 hex digits>'),
    reason: z.string().min(1).max(500).optional(),
  })
  .refine((value) => value.decision === 'approve' || value.reason !== undefined, {
    path: ['reason'],
    message: 'a rejection needs a reason',
  });

export type DecisionRequest = z.infer<typeof decisionRequestSchema>;

const refuse = (status: number, code: string, message: string) => new ApiError(status, 'decision', code, message);

/**
 * One person's approve or reject of one proposal. Everything is re-read inside the transaction,
 * with the proposal row locked, so concurrent deciders serialize and only one can finish it.
 */
export async function decide(
  db: Database,
  input: { userId: string; proposalId: string; request: DecisionRequest },
  now = new Date(),
): Promise<Proposal> {
  const { userId, proposalId, request } = input;
  return db.transaction(async (tx) => {
    const [proposal] = await tx.select().from(proposals).where(eq(proposals.id, proposalId)).for('update').limit(1);
    if (!proposal) throw notFound();
    const [membership] = await tx
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.tenantId, proposal.tenantId), eq(memberships.userId, userId)))
      .limit(1);
    if (!membership) throw notFound();
    if (!roleAtLeast(membership.role, proposal.routing.role)) {
      throw refuse(403, 'forbidden_role', `Deciding this proposal needs the ${proposal.routing.role} role; you are ${membership.role}.`);
    }
    if (proposal.status !== 'pending_approval') {
      throw refuse(409, 'already_decided', `This proposal is already ${proposal.status.replace('_', ' ')}; nothing was changed.`);
    }
    if (proposal.expiresAt.getTime() <= now.getTime()) {
      throw refuse(409, 'expired', 'This proposal expired before the decision; nothing was changed.');
    }
    if (request.payloadHash !== proposal.payloadHash || payloadHash(proposal.payload) !== proposal.payloadHash) {
      throw refuse(409, 'hash_mismatch', 'The payload hash you approved is not the one stored; reload the proposal and review it again.');
    }
    if (request.decision === 'approve' && (await initiatedBy(tx, proposal, userId))) {
      throw refuse(403, 'self_approval', 'You initiated this proposal, so someone else must approve it.');
    }
    const [previous] = await tx
      .select({ id: decisions.id })
      .from(decisions)
      .where(and(eq(decisions.proposalId, proposal.id), eq(decisions.userId, userId)))
      .limit(1);
    if (previous) throw refuse(409, 'already_decided', 'You already decided this proposal; another approver must add theirs.');

    await tx.insert(decisions).values({
      id: newId('dec'),
      tenantId: proposal.tenantId,
      proposalId: proposal.id,
      userId,
      decision: request.decision,
      payloadHash: proposal.payloadHash,
      reason: request.reason ?? null,
      createdAt: now,
    });
    const approvals = await tx
      .select({ id: decisions.id })
      .from(decisions)
      .where(and(eq(decisions.proposalId, proposal.id), eq(decisions.decision, 'approve')));
    const nextStatus =
      request.decision === 'reject' ? 'rejected' : approvals.length >= proposal.routing.approvals ? 'approved' : 'pending_approval';
    const [updated] = await tx
      .update(proposals)
      .set({
        status: nextStatus,
        decidedAt: nextStatus === 'pending_approval' ? null : now,
        statusReason: request.decision === 'reject' ? (request.reason ?? null) : null,
        updatedAt: now,
      })
      .where(eq(proposals.id, proposal.id))
      .returning();
    if (!updated) throw new Error('locked proposal vanished');

    const type = request.decision === 'reject' ? 'proposal.rejected' : nextStatus === 'approved' ? 'proposal.approved' : 'proposal.approval_added';
    await tx.insert(outbox).values({
      id: newId('obx'),
      tenantId: proposal.tenantId,
      topic: 'proposal.decided',
      proposalId: proposal.id,
      body: { proposalId: proposal.id, status: nextStatus, decision: request.decision, payloadHash: proposal.payloadHash },
      createdAt: now,
    });
    // Last, so the tenant's chain head stays locked for as short a time as possible.
    await appendAudit(tx, {
      tenantId: proposal.tenantId,
      type,
      actor: { type: 'user', id: userId },
      proposalId: proposal.id,
      payloadHash: proposal.payloadHash,
      reasonCode: request.decision,
      contractVersion: proposal.contractVersion,
      data: { approvals: approvals.length, required: proposal.routing.approvals },
      occurredAt: now,
    });
    return updated;
  });
}

/** The editor of a revision and the person an agent acts for both count as initiators. */
async function initiatedBy(tx: Database, proposal: Proposal, userId: string): Promise<boolean> {
  if (proposal.initiatedByUserId === userId) return true;
  if (!proposal.agentKeyId) return false;
  const [key] = await tx
    .select({ onBehalfOf: agentKeys.onBehalfOfUserId })
    .from(agentKeys)
    .where(eq(agentKeys.id, proposal.agentKeyId))
    .limit(1);
  return key?.onBehalfOf === userId;
}
