'use client';

import Link from 'next/link';
import { isMine, partWords, type QueueItem } from '@/lib/proposals/queue-view';
import { visibleText } from '@/lib/text/visible';
import { FlagChips } from './flag-chips';
import { PayloadText } from './payload-text';
import { ChangedChip, RiskBadge } from './queue-signals';
import { RelativeTime } from './queue-times';

export { RiskBadge } from './queue-signals';

export type QueueRowProps = {
  item: QueueItem;
  /** The row the keys act on: its link holds the grid's one tab stop (roving tabindex). */
  focused: boolean;
  /** Ticked for a batch (aria-selected says this, and only this). */
  selected: boolean;
  /** The viewer may decide in this tenant (viewers see no boxes at all). */
  canDecide: boolean;
  /** Everything is inert: the session ended. */
  disabled: boolean;
  /** A decision on this row is on its way. */
  pending: 'approve' | 'reject' | undefined;
  now: Date;
  onToggle: (id: string) => void;
  onFocusRow: (id: string) => void;
};

/**
 * One proposal: risk and the whole summary sentence lead, then the gates' flags; on a phone the
 * agent's reason's first line (large screens show it in the preview); then one meta line (it wraps):
 * action, agent, quorum, rule, time left, age. A row that is not the viewer's to decide says why
 * and has no box.
 */
export function QueueRow({ item, focused, selected, canDecide, disabled, pending, now, onToggle, onFocusRow }: QueueRowProps) {
  const mine = isMine(item);
  const selectable = canDecide && mine;
  const reasonLine = item.reason?.split('\n')[0] ?? null;
  return (
    <div
      role="row"
      aria-selected={selectable ? selected : undefined}
      aria-disabled={disabled || !mine || undefined}
      aria-busy={pending ? true : undefined}
      data-testid="queue-item"
      data-proposal-id={item.id}
      data-mine={mine ? 'true' : 'false'}
      data-focused={focused ? 'true' : undefined}
      onFocus={() => onFocusRow(item.id)}
      className={`flex items-start gap-3 px-3 py-3 outline-none focus-within:bg-blue-50 focus-within:ring-2 focus-within:ring-inset focus-within:ring-blue-600 dark:focus-within:bg-blue-950/40 sm:px-4 ${focused ? 'bg-zinc-50 dark:bg-zinc-800/50' : ''} ${selected ? 'bg-blue-50/60 dark:bg-blue-950/30' : ''} ${pending ? 'opacity-70' : ''}`}
    >
      {canDecide ? (
        <span role="gridcell" className="flex h-6 w-6 shrink-0 items-center justify-center">
          {mine ? (
            <input
              type="checkbox"
              tabIndex={-1}
              data-testid={`queue-select-${item.id}`}
              aria-label={`Select: ${visibleText(item.summary)}`}
              checked={selected}
              disabled={disabled || pending !== undefined}
              onChange={() => onToggle(item.id)}
              className="h-6 w-6 rounded border-zinc-400 accent-blue-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
            />
          ) : null}
        </span>
      ) : null}
      <span role="gridcell" className="grid min-w-0 flex-1 gap-1">
        <span className="flex min-w-0 flex-wrap items-start gap-x-2 gap-y-1">
          <RiskBadge item={item} />
          <Link
            href={`/proposals/${item.id}`}
            tabIndex={focused ? 0 : -1}
            data-testid="queue-item-link"
            aria-disabled={disabled || undefined}
            className="min-w-0 break-words font-medium hover:underline focus-visible:rounded focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
          >
            <PayloadText value={item.summary} mono={false} />
          </Link>
          {pending ? (
            <span data-testid="queue-item-pending" className="ml-auto inline-flex items-center gap-1.5 text-sm text-zinc-700 dark:text-zinc-300">
              <span aria-hidden="true" className="h-3.5 w-3.5 animate-spin rounded-full border-2 border-zinc-400 border-t-transparent" />
              {pending === 'approve' ? 'Approving…' : 'Rejecting…'}
            </span>
          ) : null}
        </span>
        {item.flags.length > 0 || item.changedSinceProposed ? (
          <span className="flex flex-wrap gap-1" data-testid="queue-item-flags">
            <FlagChips flags={item.flags} testId="queue-item-flag-chips" />
            <ChangedChip description={item.changedSinceProposed} />
          </span>
        ) : null}
        {reasonLine ? (
          <span data-testid="queue-item-reason" className="line-clamp-1 text-sm text-zinc-700 lg:hidden dark:text-zinc-300">
            <PayloadText value={reasonLine} mono={false} />
          </span>
        ) : null}
        {!mine ? (
          <span data-testid="queue-item-part" className="text-sm font-medium text-zinc-700 dark:text-zinc-300">{partWords(item.mine)}</span>
        ) : null}
        <span className="flex flex-wrap gap-x-4 gap-y-0.5 text-sm text-zinc-600 dark:text-zinc-400">
          <span className="font-mono text-xs leading-5" data-testid="queue-item-action">{item.action}</span>
          <span data-testid="queue-item-agent"><PayloadText value={item.agent} mono={false} /></span>
          <span data-testid="queue-item-quorum" title="approvals so far of those needed">{item.approvals.have} of {item.approvals.need}</span>
          <span data-testid="queue-item-rule" title="routing rule and policy version">rule {item.rule}</span>
          <RelativeTime value={item.expiresAt} now={now} kind="left" label="Expires" testId="queue-item-left" />
          <RelativeTime value={item.createdAt} now={now} kind="age" label="Proposed" testId="queue-item-age" />
        </span>
      </span>
    </div>
  );
}

/** Placeholder rows of the final row's size, so nothing jumps when the data arrives. */
export function QueueSkeleton({ rows = 5 }: { rows?: number }) {
  return (
    <div aria-busy="true" aria-label="Loading the queue" data-testid="queue-loading" className="divide-y divide-zinc-200 overflow-hidden rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
      {Array.from({ length: rows }, (_, row) => (
        <div key={row} className="flex items-start gap-3 px-4 py-3">
          <span className="h-6 w-6 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
          <span className="grid flex-1 gap-1">
            <span className="h-6 w-3/4 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
            <span className="h-5 w-80 max-w-full animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
          </span>
        </div>
      ))}
    </div>
  );
}
