import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { type GateResult, type Proposal, proposals } from '@/db/schema';
import type { AuditInput } from '@/lib/events/append';
import { recordStateChange } from '@/lib/events/record';
import { adjustClaims } from '@/lib/gates/claims';
import { type StaleVerdict, staleGates } from './live';

type Actor = AuditInput['actor'];

/** The actor of changes nobody asked for (a sweep noticing an overdue proposal). */
export const EXPIRY_ACTOR: Actor = { type: 'system', id: 'expiry' };

/** The actor of the background re-check of open proposals against live state. */
export const RECHECK_ACTOR: Actor = { type: 'system', id: 'recheck' };

export const expiryReason = (proposal: Pick<Proposal, 'expiresAt'>) =>
  `No decision before ${proposal.expiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC; a timeout ` +
  `never approves.`;

/**
 * Moves a locked pending proposal to a final status nobody decided (`expired`, `stale`): the row,
 * an outbox row and the audit event, in the caller's transaction. `gates` replaces the stored
 * checks (a stale proposal shows the one that failed).
 */
export async function endProposal(
  tx: Database,
  proposal: Proposal,
  outcome: {
    status: 'expired' | 'stale';
    reason: string;
    actor: Actor;
    reasonCode: string;
    data?: Record<string, string | number | boolean | null>;
    gates?: GateResult[];
  },
  now: Date,
): Promise<Proposal> {
  const [updated] = await tx
    .update(proposals)
    .set({
      status: outcome.status,
      statusReason: outcome.reason,
      decidedAt: now,
      updatedAt: now,
      ...(outcome.gates ? { gates: outcome.gates } : {}),
    })
    .where(eq(proposals.id, proposal.id))
    .returning();
  if (!updated) throw new Error('locked proposal vanished');
  await adjustClaims(tx, proposal, proposal.status, outcome.status);
  await recordStateChange(tx, {
    tenantId: proposal.tenantId,
    type: `proposal.${outcome.status}`,
    actor: outcome.actor,
    proposalId: proposal.id,
    payloadHash: proposal.payloadHash,
    reasonCode: outcome.reasonCode,
    contractVersion: proposal.contractVersion,
    data: outcome.data,
    occurredAt: now,
    outbox: {
      topic: `proposal.${outcome.status}`,
      body: { proposalId: proposal.id, status: outcome.status, payloadHash: proposal.payloadHash },
    },
  });
  return updated;
}

/**
 * Ends a locked pending proposal as `stale` because live state no longer lets it hold: the reason
 * in words, the failed check flipped to ✗ with what moved, audited under `actor`.
 */
export function endStale(
  tx: Database,
  proposal: Proposal,
  verdict: StaleVerdict,
  actor: Actor,
  now: Date,
): Promise<Proposal> {
  return endProposal(
    tx,
    proposal,
    {
      status: 'stale',
      reason: verdict.reason,
      actor,
      reasonCode: verdict.code,
      data: { reason: verdict.reason, gate: verdict.gate },
      gates: staleGates(proposal.gates, verdict),
    },
    now,
  );
}
