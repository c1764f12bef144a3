'use client';

import Link from 'next/link';
import { isMine, partWords, type QueueItem } from '@/lib/shared/queue-view';
import { FactsView, useFreshFacts } from './fresh-facts';
import { PayloadText } from './payload-text';
import { ItemSignals, quorumAfterYours } from './queue-signals';
import { ClockTime, RelativeTime } from './queue-times';
import { Button } from './ui/button';
import { PropertyRow, PropertyTable } from './ui/table';

export type QueuePreviewProps = {
  item: QueueItem | undefined;
  now: Date;
  /** Deciding is disabled (a viewer, the session ended, a decision in flight). */
  disabled: boolean;
  onApprove: (item: QueueItem) => void;
  onReject: (item: QueueItem) => void;
};

/**
 * The focused proposal beside the list (large screens): what it does, the arguments with their
 * words, the gates' flags, its facts at proposal and now, the evidence's start (untrusted),
 * quorum, rule, time left and a link to the full page. Everything but the facts comes with the
 * queue page; the facts are read again from the system of record for the focused item (bounded,
 * shared a few seconds), and `a` approves in one key only once that check came back clear.
 */
export function QueuePreview({ item, now, disabled, onApprove, onReject }: QueuePreviewProps) {
  const facts = useFreshFacts(item?.id);
  if (!item) {
    return (
      <aside
        aria-label="Preview"
        data-testid="queue-preview"
        className={
          'rounded-lg border border-dashed border-zinc-300 p-6 text-sm text-zinc-600 dark:border-zinc-700 ' +
          'dark:text-zinc-400'
        }
      >
        Move to a proposal (j/k or the arrow keys) to preview it here.
      </aside>
    );
  }
  const mine = isMine(item);
  const after = quorumAfterYours(item);
  return (
    <aside
      aria-label="Preview"
      data-testid="queue-preview"
      data-proposal-id={item.id}
      className="grid gap-3 rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div>
        <h2 className="text-base font-semibold break-words" data-testid="queue-preview-summary">
          <PayloadText value={item.summary} mono={false} />
        </h2>
        <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">
          <span className="font-mono">{item.action}</span> · proposed by agent{' '}
          <PayloadText value={item.agent} mono={false} />{' '}
          <RelativeTime value={item.createdAt} now={now} kind="age" label="Proposed" />
        </p>
      </div>

      {!mine ? (
        <p data-testid="queue-preview-part" className="rounded-md bg-zinc-100 px-2 py-1 text-sm dark:bg-zinc-800">
          {partWords(item.mine)}
        </p>
      ) : null}

      <ItemSignals
        item={item}
        testId="queue-preview-signals"
        changed={facts.data && facts.data.state !== 'unavailable' ? null : item.changedSinceProposed}
      >
        <FactsView facts={facts.data} failed={facts.isError} testId="queue-preview-facts" />
      </ItemSignals>

      <PropertyTable
        caption={`Arguments${item.reason !== null ? ' (the reason is above)' : ''}`}
        testId="queue-preview-args"
      >
        {item.args
          .filter((arg) => item.reason === null || arg.name !== 'reason')
          .map((arg) => (
            <PropertyRow key={arg.name} name={arg.name} dense testId={`queue-preview-arg-${arg.name}`}>
              <PayloadText value={arg.value} />
              {arg.hint ? <span className="ml-2 text-zinc-600 dark:text-zinc-400">({arg.hint})</span> : null}
            </PropertyRow>
          ))}
      </PropertyTable>

      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-zinc-600 dark:text-zinc-400">Quorum</dt>
        <dd data-testid="queue-preview-quorum">
          {item.approvals.have} of {item.approvals.need} approvals ({item.role})
          {mine && after ? <span className="block text-xs text-amber-800 dark:text-amber-300">{after}</span> : null}
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Rule</dt>
        <dd className="break-words">{item.rule}</dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Expires</dt>
        <dd>
          <ClockTime value={item.expiresAt} testId="queue-preview-expires" /> ·{' '}
          <RelativeTime value={item.expiresAt} now={now} kind="left" label="Expires" />
        </dd>
      </dl>

      <div className="flex flex-wrap items-center gap-2">
        {mine ? (
          <>
            <Button
              variant="primary"
              data-testid="queue-preview-approve"
              disabled={disabled}
              onClick={() => onApprove(item)}
            >
              <PayloadText value={item.approveLabel} mono={false} />
            </Button>
            <Button
              variant="danger"
              data-testid="queue-preview-reject"
              disabled={disabled}
              onClick={() => onReject(item)}
            >
              Reject…
            </Button>
          </>
        ) : null}
        <Link
          href={`/proposals/${item.id}`}
          data-testid="queue-preview-open"
          className={
            'ml-auto text-sm underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-blue-600'
          }
        >
          Open the full proposal →
        </Link>
      </div>
    </aside>
  );
}
