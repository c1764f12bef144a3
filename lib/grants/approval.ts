import type { Database } from '@/db';
import type { Grant, Proposal } from '@/db/schema';
import { aboutProposal, recordStateChange } from '@/lib/events/record';

/**
 * The approval a standing grant gave, as the proposal's audit event: `proposal.approved` in the
 * granter's name with reason code `grant` and the grant's id and use so far, so History, the
 * timeline and the evidence bundle read "approved under grant g_… from Alice". No decision row is
 * written (nobody looked at it: the oversight figures count people's decisions only), and no
 * notification beside the creation's, which already says it was approved.
 */
export async function recordGrantApproval(tx: Database, proposal: Proposal, grant: Grant, now: Date): Promise<void> {
  await recordStateChange(tx, {
    ...aboutProposal(proposal),
    type: 'proposal.approved',
    actor: { type: 'user', id: grant.grantedBy },
    reasonCode: 'grant',
    data: {
      grant: grant.id,
      grantedFrom: grant.proposalId,
      used: grant.usedCount,
      maxCount: grant.maxCount,
      usedTotalMinor: grant.usedTotalMinor,
      maxTotalMinor: grant.maxTotalMinor,
      grantExpiresAt: grant.expiresAt.toISOString(),
    },
    occurredAt: now,
    outbox: false,
  });
}
