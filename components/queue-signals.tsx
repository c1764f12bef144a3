import type { ReactNode } from 'react';
import { itemSeverity, type QueueItem } from '@/lib/shared/queue-view';
import { severityTitle } from '@/lib/shared/severity';
import { FlagChips } from './flag-chips';
import { PayloadText } from './payload-text';

const RISK_LOOK: Record<string, string> = {
  high: 'bg-red-100 text-red-900 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-800',
  medium: 'bg-amber-100 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800',
  low: 'bg-zinc-100 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-700',
};

/**
 * The one severity (lib/shared/severity.ts: risk raised by flags and quorum) with its word:
 * colour is never the only signal; what raised it is said on hover and to screen readers.
 */
export function RiskBadge({
  item,
  testId = 'queue-item-risk',
}: {
  item: Pick<QueueItem, 'risk' | 'flags' | 'approvals'>;
  testId?: string;
}) {
  const severity = itemSeverity(item);
  const title = severityTitle(severity, item.risk);
  return (
    <span
      data-testid={testId}
      data-severity={severity.level}
      title={title}
      className={
        `inline-flex shrink-0 items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ` +
        `ring-1 ${RISK_LOOK[severity.level] ?? RISK_LOOK.low}`
      }
    >
      <span aria-hidden="true">●</span>
      {severity.level} risk
      {severity.raisedBy.length > 0 ? (
        <span className="sr-only">{title.slice(`${severity.level} risk`.length)}</span>
      ) : null}
    </span>
  );
}

/**
 * "Changed since proposed": the resource moved but the proposal still holds; what moved is the tooltip, or spelled out
 * when `detailed`.
 */
export function ChangedChip({ description, detailed = false }: { description: string | null; detailed?: boolean }) {
  if (!description) return null;
  const chip = (
    <span
      data-testid="changed-chip"
      title={description}
      className={
        'inline-flex shrink-0 items-center gap-1 rounded-full bg-violet-100 px-2 py-0.5 text-xs font-medium ' +
        'text-violet-900 ring-1 ring-violet-300 dark:bg-violet-950 dark:text-violet-200 dark:ring-violet-800'
      }
    >
      <span aria-hidden="true">↻</span>
      Changed since proposed
    </span>
  );
  if (!detailed) return chip;
  return (
    <p data-testid="changed-since" className="flex flex-wrap items-baseline gap-x-2 text-sm">
      {chip}
      <span className="min-w-0 break-words text-zinc-700 dark:text-zinc-300">{description}</span>
    </p>
  );
}

/** What the viewer's approval does to the quorum, in words; null when it completes it. */
export function quorumAfterYours(item: Pick<QueueItem, 'approvals'>): string | null {
  const more = item.approvals.need - item.approvals.have - 1;
  if (more <= 0) return null;
  return `Nothing runs yet: ${more} more approval${more === 1 ? '' : 's'} needed after yours`;
}

/**
 * Everything that should stop a fast approval, for a dialog or the preview: risk, the gates' flags
 * spelled out, what changed since it was proposed, the agent's reason and the start of each cited
 * evidence item (untrusted, inert text).
 */
export function ItemSignals({
  item,
  testId,
  changed,
  children,
}: {
  item: QueueItem;
  testId?: string;
  changed?: string | null;
  children?: ReactNode;
}) {
  const severity = itemSeverity(item);
  return (
    <div data-testid={testId} className="grid gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <RiskBadge item={item} testId="signals-risk" />
        <span className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="signals-quorum">
          {item.approvals.have} of {item.approvals.need} approvals
        </span>
        {severity.raisedBy.length > 0 ? (
          <span className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="signals-raised-by">
            {severity.level} because: {severity.raisedBy.join(' · ')}
          </span>
        ) : null}
      </div>
      <FlagChips flags={item.flags} detailed testId="signals-flags" />
      {children}
      <ChangedChip description={changed === undefined ? item.changedSinceProposed : changed} detailed />
      {item.reason !== null ? (
        <p className="text-sm" data-testid="signals-reason">
          <span className="text-zinc-600 dark:text-zinc-400">Reason given by the agent: </span>
          <PayloadText value={item.reason} mono={false} />
        </p>
      ) : null}
      <EvidenceExcerpts item={item} />
    </div>
  );
}

/** The start of each cited evidence item, in a container that says it is untrusted. */
export function EvidenceExcerpts({ item }: { item: Pick<QueueItem, 'evidence'> }) {
  if (item.evidence.length === 0) return null;
  return (
    <section
      aria-label="Evidence, untrusted"
      data-testid="signals-evidence"
      className={
        'rounded-md border border-dashed border-amber-400 bg-amber-50/60 p-2 text-sm dark:border-amber-700 ' +
        'dark:bg-amber-950/30'
      }
    >
      <h3 className="text-xs font-medium uppercase tracking-wide text-amber-900 dark:text-amber-200">
        Evidence — untrusted, written by outsiders
      </h3>
      <ul className="mt-1 space-y-1.5">
        {item.evidence.map((evidence) => (
          <li key={evidence.id} data-testid="signals-evidence-item">
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              <PayloadText value={evidence.id} /> ·{' '}
              <PayloadText value={evidence.kind.replaceAll('_', ' ')} mono={false} />
            </span>
            <span className="block whitespace-pre-wrap break-words">
              “<PayloadText value={evidence.excerpt} mono={false} multiline />
              {evidence.truncated ? '…' : ''}”
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
