'use client';

import Link from 'next/link';
import { isMine, partWords, type QueueItem } from '@/lib/shared/queue-view';
import { visibleText } from '@/lib/text/visible';
import { FlagChips } from './flag-chips';
import { PayloadText } from './payload-text';
import { ChangedChip, RiskBadge } from './queue-signals';
import { RelativeTime } from './queue-times';
import { cn } from './ui/cn';

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
 * Row titles never break inside a word: one line, cut with an ellipsis (the whole sentence is the link's title and in
 * the preview).
 */
export const ROW_TITLE = 'block min-w-0 flex-1 truncate [overflow-wrap:normal] [word-break:normal]';

/**
 * One proposal in two compact lines (about 56 px: 12 fit above the fold at 1440×900): risk, the summary sentence (one
 * line, the whole of it in the preview pane and the link's title) and, on large screens, time left and age; then
 * the gates' flags, whose move it is when not the viewer's, quorum, action, agent and rule (on a
 * phone, time left and age lead this line). On a
 * phone a third line gives the agent's reason's first line (large screens show it in the preview).
 * A row that is not the viewer's to decide says why and has no box.
 */
export function QueueRow({
  item,
  focused,
  selected,
  canDecide,
  disabled,
  pending,
  now,
  onToggle,
  onFocusRow,
}: QueueRowProps) {
  const mine = isMine(item);
  const selectable = canDecide && mine;
  const reasonLine = item.reason?.split('\n')[0] ?? null;
  const summary = visibleText(item.summary);
  const times = (
    <>
      <RelativeTime value={item.expiresAt} now={now} kind="left" label="Expires" testId="queue-item-left" />
      <RelativeTime value={item.createdAt} now={now} kind="age" label="Proposed" testId="queue-item-age" />
    </>
  );
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
      className={cn(
        'flex items-center gap-3 px-3 py-1.5 outline-none focus-within:bg-blue-50 focus-within:ring-2 ' +
          'focus-within:ring-inset focus-within:ring-blue-600 dark:focus-within:bg-blue-950/40',
        focused && 'bg-zinc-50 dark:bg-zinc-800/50',
        selected && 'bg-blue-50/60 dark:bg-blue-950/30',
        pending && 'opacity-70',
      )}
    >
      {canDecide ? (
        <span role="gridcell" className="flex h-6 w-6 shrink-0 items-center justify-center">
          {mine ? (
            <input
              type="checkbox"
              tabIndex={-1}
              data-testid={`queue-select-${item.id}`}
              aria-label={`Select: ${summary}`}
              checked={selected}
              disabled={disabled || pending !== undefined}
              onChange={() => onToggle(item.id)}
              className={
                'h-5 w-5 rounded border-zinc-400 accent-blue-700 focus-visible:outline-2 ' +
                'focus-visible:outline-offset-2 focus-visible:outline-blue-600'
              }
            />
          ) : null}
        </span>
      ) : null}
      <span role="gridcell" className="grid min-w-0 flex-1 gap-0.5">
        <span className="flex min-w-0 items-center gap-2">
          <RiskBadge item={item} />
          <Link
            href={`/proposals/${item.id}`}
            tabIndex={focused ? 0 : -1}
            title={summary}
            data-testid="queue-item-link"
            aria-disabled={disabled || undefined}
            className={cn(
              ROW_TITLE,
              'text-sm font-medium leading-5 hover:underline focus-visible:rounded focus-visible:outline-2 ' +
                'focus-visible:outline-offset-2 focus-visible:outline-blue-600',
            )}
          >
            <PayloadText value={item.summary} mono={false} />
          </Link>
          {pending ? (
            <span
              data-testid="queue-item-pending"
              className="inline-flex shrink-0 items-center gap-1.5 text-xs text-zinc-700 dark:text-zinc-300"
            >
              <span
                aria-hidden="true"
                className="h-3.5 w-3.5 animate-spin rounded-full border-2 border-zinc-400 border-t-transparent"
              />
              {pending === 'approve' ? 'Approving…' : 'Rejecting…'}
            </span>
          ) : null}
          <span className="hidden shrink-0 gap-3 text-xs text-zinc-600 lg:flex dark:text-zinc-400">{times}</span>
        </span>
        <span
          className={
            'flex min-w-0 items-center gap-x-3 overflow-hidden whitespace-nowrap text-xs leading-5 text-zinc-600 ' +
            'dark:text-zinc-400'
          }
        >
          {item.flags.length > 0 || item.changedSinceProposed ? (
            <span className="flex shrink-0 gap-1" data-testid="queue-item-flags">
              <FlagChips flags={item.flags} testId="queue-item-flag-chips" />
              <ChangedChip description={item.changedSinceProposed} />
            </span>
          ) : null}
          {!mine ? (
            <span data-testid="queue-item-part" className="shrink-0 font-medium text-zinc-700 dark:text-zinc-300">
              {partWords(item.mine)}
            </span>
          ) : null}
          {/* On a phone, time left comes first: the line is cut at the screen's edge. */}
          <span className="flex shrink-0 gap-3 lg:hidden">{times}</span>
          <span data-testid="queue-item-quorum" className="shrink-0" title="approvals so far of those needed">
            {item.approvals.have} of {item.approvals.need}
          </span>
          <span className="shrink-0 font-mono" data-testid="queue-item-action">
            {item.action}
          </span>
          <span data-testid="queue-item-agent" className="shrink-0">
            <PayloadText value={item.agent} mono={false} />
          </span>
          <span data-testid="queue-item-rule" className="min-w-0 truncate" title="routing rule and policy version">
            rule {item.rule}
          </span>
        </span>
        {reasonLine ? (
          <span data-testid="queue-item-reason" className="truncate text-xs text-zinc-700 lg:hidden dark:text-zinc-300">
            <PayloadText value={reasonLine} mono={false} />
          </span>
        ) : null}
      </span>
    </div>
  );
}

/** Placeholder rows of the final row's size, so nothing jumps when the data arrives. */
export function QueueSkeleton({ rows = 12 }: { rows?: number }) {
  return (
    <div
      role="status"
      aria-busy="true"
      aria-label="Loading the queue"
      data-testid="queue-loading"
      className={
        'divide-y divide-zinc-200 overflow-hidden rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 ' +
        'dark:border-zinc-800 dark:bg-zinc-900'
      }
    >
      {Array.from({ length: rows }, (_, row) => (
        <div key={row} className="flex items-center gap-3 px-3 py-1.5">
          <span className="h-6 w-6 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
          <span className="grid flex-1 gap-0.5">
            <span className="h-5 w-3/4 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
            <span className="h-5 w-80 max-w-full animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
          </span>
        </div>
      ))}
    </div>
  );
}
