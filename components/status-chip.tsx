import type { ProposalStatus } from '@/lib/proposals/view';

const LOOK: Record<ProposalStatus, { label: string; className: string }> = {
  pending_approval: { label: 'pending approval', className: 'bg-amber-100 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800' },
  approved: { label: 'approved', className: 'bg-blue-100 text-blue-900 ring-blue-300 dark:bg-blue-950 dark:text-blue-200 dark:ring-blue-800' },
  executing: { label: 'executing', className: 'bg-blue-100 text-blue-900 ring-blue-300 dark:bg-blue-950 dark:text-blue-200 dark:ring-blue-800' },
  succeeded: { label: 'succeeded', className: 'bg-green-100 text-green-900 ring-green-300 dark:bg-green-950 dark:text-green-200 dark:ring-green-800' },
  failed: { label: 'failed', className: 'bg-red-100 text-red-900 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-800' },
  outcome_unknown: { label: 'outcome unknown · checking', className: 'bg-violet-100 text-violet-900 ring-violet-300 dark:bg-violet-950 dark:text-violet-200 dark:ring-violet-800' },
  rejected: { label: 'rejected', className: 'bg-stone-200 text-red-900 ring-stone-300 dark:bg-stone-800 dark:text-red-200 dark:ring-stone-700' },
  expired: { label: 'expired', className: 'bg-zinc-200 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-700' },
  stale: { label: 'stale', className: 'bg-zinc-200 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-700' },
  cancelled: { label: 'cancelled', className: 'bg-zinc-200 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-700' },
};

/** Colour is never the only signal: every chip carries the word. */
export function StatusChip({ status }: { status: ProposalStatus }) {
  const look = LOOK[status];
  return (
    <span data-testid="status-chip" data-status={status} className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ${look.className}`}>
      {look.label}
    </span>
  );
}
