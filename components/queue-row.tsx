import Link from 'next/link';
import type { QueueItem } from '@/lib/proposals/queue-view';
import { visibleText } from '@/lib/text/visible';
import { PayloadText } from './payload-text';
import { absoluteTime, humanDuration, Time } from './time';

const RISK_LOOK: Record<string, string> = {
  high: 'bg-red-100 text-red-900 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-800',
  medium: 'bg-amber-100 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800',
  low: 'bg-zinc-100 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-700',
};

/** Risk with its word: colour is never the only signal. */
export function RiskBadge({ risk }: { risk: string }) {
  return (
    <span data-testid="queue-item-risk" className={`inline-flex shrink-0 items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ${RISK_LOOK[risk] ?? RISK_LOOK.low}`}>
      <span aria-hidden="true">●</span>
      {risk} risk
    </span>
  );
}

export type QueueRowProps = {
  item: QueueItem;
  focused: boolean;
  selected: boolean;
  /** Viewers see the row without the selection box. */
  selectable: boolean;
  now: Date;
  onToggle: (id: string) => void;
  onFocusRow: (id: string) => void;
};

/** One proposal: risk and the whole summary sentence lead; below them one meta line (it wraps on a phone): action, agent, quorum, rule, time left, age. */
export function QueueRow({ item, focused, selected, selectable, now, onToggle, onFocusRow }: QueueRowProps) {
  const left = new Date(item.expiresAt).getTime() - now.getTime();
  return (
    <div
      role="row"
      aria-selected={focused}
      data-testid="queue-item"
      data-proposal-id={item.id}
      data-focused={focused ? 'true' : undefined}
      onFocus={() => onFocusRow(item.id)}
      className={`flex items-start gap-3 px-4 py-3 ${focused ? 'bg-blue-50 ring-2 ring-inset ring-blue-500 dark:bg-blue-950/40' : ''}`}
    >
      {selectable ? (
        <span role="gridcell" className="pt-0.5">
          <input
            type="checkbox"
            data-testid={`queue-select-${item.id}`}
            aria-label={`Select: ${visibleText(item.summary)}`}
            checked={selected}
            onChange={() => onToggle(item.id)}
            className="h-4 w-4 rounded border-zinc-400 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
          />
        </span>
      ) : null}
      <span role="gridcell" className="grid min-w-0 flex-1 gap-1">
        <span className="flex min-w-0 items-start gap-2">
          <RiskBadge risk={item.risk} />
          <Link
            href={`/proposals/${item.id}`}
            data-testid="queue-item-link"
            className="min-w-0 break-words font-medium hover:underline focus-visible:rounded focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
          >
            <PayloadText value={item.summary} mono={false} flagNonAscii={false} />
          </Link>
        </span>
        <span className="flex flex-wrap gap-x-4 gap-y-0.5 text-sm text-zinc-600 dark:text-zinc-400">
          <span className="font-mono text-xs leading-5" data-testid="queue-item-action">{item.action}</span>
          <span data-testid="queue-item-agent"><PayloadText value={item.agent} mono={false} flagNonAscii={false} /></span>
          <span data-testid="queue-item-quorum" title="approvals so far of those needed">{item.approvals.have} of {item.approvals.need}</span>
          <span data-testid="queue-item-rule" title="routing rule and policy version">rule {item.rule}</span>
          <span data-testid="queue-item-left" title={`expires ${absoluteTime(new Date(item.expiresAt))}`} suppressHydrationWarning>
            {humanDuration(left)} left
          </span>
          <span data-testid="queue-item-age"><Time value={item.createdAt} now={now} /></span>
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
          <span className="mt-0.5 h-4 w-4 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
          <span className="grid flex-1 gap-1">
            <span className="h-6 w-3/4 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
            <span className="h-5 w-80 max-w-full animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
          </span>
        </div>
      ))}
    </div>
  );
}
