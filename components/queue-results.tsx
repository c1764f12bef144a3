'use client';

import { decisionResultWords } from '@/lib/proposals/words';
import { PayloadText } from './payload-text';
import { Button } from './ui/button';

export type DecisionOutcome =
  | { state: 'sending'; decision: 'approve' | 'reject' }
  /** `more`: approvals still needed after this one (0 once the quorum is met). */
  | { state: 'done'; decision: 'approve' | 'reject'; status: string; more: number }
  | { state: 'error'; code: string; message: string };

export type DecisionResult = { id: string; summary: string; outcome: DecisionOutcome };

/** The outcome in words; a first approval of a two-approver item says that nothing runs yet. */
export function describeOutcome(outcome: DecisionOutcome): string {
  if (outcome.state === 'sending') return outcome.decision === 'approve' ? 'Approving…' : 'Rejecting…';
  if (outcome.state === 'done') {
    if (outcome.decision === 'approve' && outcome.status === 'pending_approval') {
      return `Approved by you · ${outcome.more} more needed — nothing runs yet`;
    }
    return decisionResultWords(outcome.decision, outcome.status);
  }
  return `${outcome.code} — ${outcome.message}`;
}

function ResultLine({ id, summary, outcome }: DecisionResult) {
  return (
    <li
      data-testid={`queue-result-${id}`}
      data-outcome={outcome.state === 'error' ? outcome.code : outcome.state}
      className="flex flex-wrap gap-x-2"
    >
      <span
        className={
          outcome.state === 'error'
            ? 'font-medium text-red-700 dark:text-red-300'
            : outcome.state === 'done'
              ? 'font-medium text-green-800 dark:text-green-300'
              : 'text-zinc-600 dark:text-zinc-400'
        }
      >
        {outcome.state === 'error' ? '✗' : outcome.state === 'done' ? '✓' : '…'} {describeOutcome(outcome)}
      </span>
      <span className="min-w-0 text-zinc-600 dark:text-zinc-400">
        <PayloadText value={summary} mono={false} />
      </span>
    </li>
  );
}

/**
 * Each decided item's own result (one line each, never one result for all), newest first; they
 * stay until dismissed. Refusals are in an alert region, so a screen reader announces them.
 */
export function QueueResults({ results, onDismiss }: { results: DecisionResult[]; onDismiss: () => void }) {
  const errors = results.filter((result) => result.outcome.state === 'error');
  const others = results.filter((result) => result.outcome.state !== 'error');
  return (
    <>
      <div
        role="alert"
        data-testid="queue-decision-errors"
        className={
          errors.length > 0
            ? 'mb-3 rounded-lg border border-red-300 bg-red-50 p-3 text-sm dark:border-red-800 dark:bg-red-950/60'
            : 'sr-only'
        }
      >
        {errors.length > 0 ? (
          <>
            <div className="flex items-center justify-between gap-2">
              <h2 className="font-medium text-red-900 dark:text-red-200">
                {errors.length === 1 ? 'A decision was not recorded' : `${errors.length} decisions were not recorded`}
              </h2>
              {others.length === 0 ? (
                <Button variant="link" className="text-xs" data-testid="queue-results-dismiss" onClick={onDismiss}>
                  Dismiss
                </Button>
              ) : null}
            </div>
            <ul className="mt-1 space-y-1">
              {errors.map((result) => (
                <ResultLine key={result.id} {...result} />
              ))}
            </ul>
          </>
        ) : null}
      </div>
      {others.length > 0 ? (
        <section
          aria-label="Decision results"
          data-testid="queue-results"
          className="mb-3 rounded-lg border border-zinc-200 bg-white p-3 text-sm dark:border-zinc-800 dark:bg-zinc-900"
        >
          <div className="flex items-center justify-between gap-2">
            <h2 className="font-medium">Results</h2>
            <Button variant="link" className="text-xs" data-testid="queue-results-dismiss" onClick={onDismiss}>
              Dismiss
            </Button>
          </div>
          <ul role="status" aria-live="polite" className="mt-2 max-h-40 space-y-1 overflow-y-auto">
            {others.map((result) => (
              <ResultLine key={result.id} {...result} />
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
