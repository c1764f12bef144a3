import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Proposal, proposals } from '@/db/schema';
import type { ReproposeRequest } from '@/lib/decisions/requests';
import { notFound, Refusal } from '@/lib/errors/refusal';
import { aboutProposal, recordStateChange } from '@/lib/events/record';
import type { AuditEventType, OutboxTopic } from '@/lib/events/registry';
import { proposalEventsOfType } from '@/lib/events/trail';
import { requireDecider } from './deciders';

const REQUESTED = 'proposal.repropose_requested' satisfies AuditEventType & OutboxTopic;

/** What the agent reads on `GET /api/v1/proposals/:id`: propose again, with a new requestId. */
export type Reproposal = { requestedAt: string; reason: string; note: string | null };

/** A stale proposal, or a pending one whose resource moved since it was proposed, may go back to its agent. */
export function reproposable(proposal: Pick<Proposal, 'status' | 'drift'>): boolean {
  return proposal.status === 'stale' || (proposal.status === 'pending_approval' && proposal.drift !== null);
}

/** Why, in words: the stale reason, or what changed under a pending proposal. */
function reasonOf(proposal: Proposal): string {
  if (proposal.status === 'stale') return proposal.statusReason ?? 'the world moved since it was proposed';
  return proposal.drift?.description ?? 'its resource changed since it was proposed';
}

/**
 * The request to re-propose, if someone made it (it is the audit event itself: one per proposal),
 * chained or not yet: asked inside the transaction that would make a second one.
 */
export async function reproposalOf(
  db: Database,
  proposal: Pick<Proposal, 'tenantId' | 'id'>,
): Promise<Reproposal | null> {
  const event = (
    await proposalEventsOfType(db, { tenantId: proposal.tenantId, proposalId: proposal.id, type: REQUESTED })
  ).at(-1);
  if (!event) return null;
  return {
    requestedAt: new Date(event.occurredAt).toISOString(),
    reason: typeof event.data.reason === 'string' ? event.data.reason : '',
    note: typeof event.data.note === 'string' ? event.data.note : null,
  };
}

/**
 * An approver (or admin) of the proposal's tenant asks its agent to propose again (docs/design.md §6):
 * an audited event with an outbox row, so webhook subscribers carry it to the agent's integrators,
 * and an additive `reproposal` on the proposal the agent reads. Once per proposal; the proposal
 * itself does not change (a pending one can still be decided or go stale).
 */
export async function requestReproposal(
  db: Database,
  input: { userId: string; proposalId: string; request: ReproposeRequest },
  now = new Date(),
): Promise<Reproposal> {
  return db.transaction(async (tx) => {
    const [proposal] = await tx
      .select()
      .from(proposals)
      .where(eq(proposals.id, input.proposalId))
      .for('update')
      .limit(1);
    if (!proposal) throw notFound();
    await requireDecider(tx, proposal, input.userId, 'Asking to re-propose');
    if (!reproposable(proposal)) {
      throw new Refusal(
        'not_changed',
        'Only a stale proposal, or a pending one whose resource changed since it was proposed, can be sent back ' +
          'to its agent.',
      );
    }
    if (await reproposalOf(tx, proposal))
      throw new Refusal('already_requested', 'The agent was already asked to propose this again.');
    const reason = reasonOf(proposal);
    const note = input.request.note ?? null;
    await recordStateChange(tx, {
      ...aboutProposal(proposal),
      type: REQUESTED,
      actor: { type: 'user', id: input.userId },
      reasonCode: proposal.status === 'stale' ? 'stale' : 'changed',
      data: { reason, note },
      occurredAt: now,
      outbox: {
        topic: REQUESTED,
        body: { proposalId: proposal.id, status: proposal.status, payloadHash: proposal.payloadHash },
      },
    });
    return { requestedAt: now.toISOString(), reason, note };
  });
}
