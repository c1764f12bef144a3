import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import type { ProposalDrift } from '@/db/proposal-flags';
import { type Proposal, proposals } from '@/db/schema';
import { describeDrift, type LiveRead, type StaleVerdict, staleReason } from './live';
import { endStale, RECHECK_ACTOR } from './transitions';

/** What one re-check of a pending proposal against live state came to. */
export type Judgement =
  | { outcome: 'stale'; verdict: StaleVerdict }
  | { outcome: 'drifted'; drift: ProposalDrift }
  | { outcome: 'holds' };

/**
 * Applies one live read to a pending proposal whose row the caller holds locked: stale when it no
 * longer holds (ended as the re-check's system actor, audited, outbox, the failed check flipped);
 * otherwise `drift` says in words what moved since intake, or is cleared. The background sweep
 * (lib/jobs/recheck-open.ts) and a re-check when someone looks (./fresh-facts.ts) both judge here.
 */
export async function judgeLive(tx: Database, proposal: Proposal, live: LiveRead, stamp: Date): Promise<Judgement> {
  const verdict = await staleReason(tx, proposal, live);
  if (verdict) {
    await endStale(tx, proposal, verdict, RECHECK_ACTOR, stamp);
    return { outcome: 'stale', verdict };
  }
  const description = describeDrift(proposal, live);
  const drift: ProposalDrift | null =
    description && live.resolution
      ? { checkedAt: stamp.toISOString(), facts: live.resolution.facts, description }
      : null;
  if (drift || proposal.drift) await tx.update(proposals).set({ drift }).where(eq(proposals.id, proposal.id));
  return drift ? { outcome: 'drifted', drift } : { outcome: 'holds' };
}
