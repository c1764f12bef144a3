/**
 * Small pieces of the dashboard's wording that must not contradict the proposal's state. Type-free
 * and import-free: client and server components use them.
 */

const RAN = new Set(['executing', 'succeeded', 'failed', 'outcome_unknown']);
const ENDED_UNRUN = new Set(['rejected', 'expired', 'stale', 'cancelled']);

/**
 * The payload's heading: what will run while it may still run, what ran once it did, what was proposed when it never
 * will.
 */
export function payloadTitle(status: string): string {
  if (RAN.has(status)) return 'What ran';
  if (ENDED_UNRUN.has(status)) return 'What was proposed (it did not run)';
  return 'What will run';
}

/**
 * A decision's result in words: "approved", "rejected", or where it led when that says more
 * ("approved · executing"), never the same word twice ("approved · now approved").
 */
export function decisionResultWords(decision: 'approve' | 'reject', status: string): string {
  const did = decision === 'approve' ? 'approved' : 'rejected';
  const now = status.replaceAll('_', ' ');
  return now === did ? did : `${did} · now ${now}`;
}

const WHERE_IT_IS: Record<string, string> = {
  pending_approval: 'is still waiting for approval',
  approved: 'was already approved',
  executing: 'was already approved and is running',
  succeeded: 'already ran: it was approved and succeeded',
  failed: 'already ran: it was approved and failed',
  outcome_unknown: 'was already approved and ran; its outcome is being checked',
  rejected: 'was already rejected',
  expired: 'already expired',
  stale: 'already went stale',
  cancelled: 'was already cancelled (replaced by a revision)',
};

/**
 * Where a proposal already is, as a sentence ("This proposal already ran: it was approved and succeeded"), never "is
 * already succeeded".
 */
export function alreadyWords(status: string): string {
  return `This proposal ${WHERE_IT_IS[status] ?? `is already ${status.replaceAll('_', ' ')}`}`;
}

/**
 * How urgent a proposal's time left is: a warning under 1 h, danger under 10 min (shown in words too, never colour
 * alone).
 */
export type Urgency = 'calm' | 'warning' | 'danger';

export function urgencyOf(msLeft: number): Urgency {
  if (msLeft < 10 * 60_000) return 'danger';
  if (msLeft < 60 * 60_000) return 'warning';
  return 'calm';
}

/** The word beside an urgent time left ("59 m left · soon"); empty when calm. */
export const URGENCY_WORDS: Record<Urgency, string> = { calm: '', warning: 'soon', danger: 'expiring' };

/** The approvals that count on a proposal's page: recorded, and not withdrawn (lib/quorum/quorum.ts). */
export function standingApprovals<T extends { decision: 'approve' | 'reject'; withdrawn: unknown }>(
  rows: readonly T[],
): T[] {
  return rows.filter((d) => d.decision === 'approve' && !d.withdrawn);
}
