import 'server-only';
import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Proposal, proposals } from '@/db/schema';
import { requireDecider } from '@/lib/decisions/deciders';
import { notFound, Refusal } from '@/lib/errors/refusal';
import { aboutProposal, recordStateChange } from '@/lib/events/record';
import { alreadyWords } from '@/lib/proposals/words';
import { EXPIRY_ACTOR, endProposal, expiryReason } from './transitions';

/** How long a proposal was first given to be decided (createdAt → expiresAt before any extension). */
export function grantedDuration(proposal: Pick<Proposal, 'createdAt' | 'expiresAt'>): number {
  return proposal.expiresAt.getTime() - proposal.createdAt.getTime();
}

/**
 * An approver gives a pending proposal once more the time it was first granted (docs/design.md §6:
 * "an approver may extend once, audited"). An overdue proposal is expired instead, and refused.
 */
export async function extendExpiry(
  db: Database,
  input: { userId: string; proposalId: string },
  now = new Date(),
): Promise<Proposal> {
  const result = await db.transaction(async (tx): Promise<Proposal | Refusal> => {
    const [proposal] = await tx
      .select()
      .from(proposals)
      .where(eq(proposals.id, input.proposalId))
      .for('update')
      .limit(1);
    if (!proposal) throw notFound();
    // Whoever may decide it (an approver, or an admin when the rule asks for one) may extend it.
    await requireDecider(tx, proposal, input.userId, 'Extending');
    if (proposal.status !== 'pending_approval') {
      throw new Refusal('already_decided', `${alreadyWords(proposal.status)}; it cannot be extended.`);
    }
    if (proposal.expiresAt.getTime() <= now.getTime()) {
      await endProposal(
        tx,
        proposal,
        { status: 'expired', reason: expiryReason(proposal), actor: EXPIRY_ACTOR, reasonCode: 'expired' },
        now,
      );
      return new Refusal('expired', 'This proposal expired before it was extended; a timeout never approves.');
    }
    if (proposal.extendedAt) {
      throw new Refusal('already_extended', 'This proposal was already extended once; it cannot be extended again.');
    }
    const expiresAt = new Date(proposal.expiresAt.getTime() + grantedDuration(proposal));
    const [updated] = await tx
      .update(proposals)
      .set({ expiresAt, extendedAt: now, updatedAt: now })
      .where(eq(proposals.id, proposal.id))
      .returning();
    if (!updated) throw new Error('locked proposal vanished');
    await recordStateChange(tx, {
      ...aboutProposal(proposal),
      type: 'proposal.extended',
      actor: { type: 'user', id: input.userId },
      reasonCode: 'extended',
      data: { from: proposal.expiresAt.toISOString(), to: expiresAt.toISOString() },
      occurredAt: now,
      outbox: false,
    });
    return updated;
  });
  if (result instanceof Refusal) throw result;
  return result;
}
