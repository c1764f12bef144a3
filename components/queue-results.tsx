'use client';

import { PayloadText } from './payload-text';

export type DecisionOutcome =
  | { state: 'sending' }
  | { state: 'done'; decision: 'approve' | 'reject'; status: string }
  | { state: 'error'; code: string; message: string };

export type DecisionResult = { id: string; summary: string; outcome: DecisionOutcome };

function describe(outcome: DecisionOutcome): string {
  if (outcome.state === 'sending') return 'sending…';
  if (outcome.state === 'done') {
    const did = outcome.decision === 'approve' ? 'approved' : 'rejected';
    return outcome.status === 'pending_approval' ? `${did} · waiting for more approvals` : `${did} · now ${outcome.status.replaceAll('_', ' ')}`;
  }
  return `${outcome.code} — ${outcome.message}`;
}

/** Each decided item's own result (one line each, never one result for all); it stays until dismissed. */
export function QueueResults({ results, onDismiss }: { results: DecisionResult[]; onDismiss: () => void }) {
  if (results.length === 0) return null;
  return (
    <section aria-label="Decision results" data-testid="queue-results" className="mb-3 rounded-lg border border-zinc-200 bg-white p-3 text-sm dark:border-zinc-800 dark:bg-zinc-900">
      <div className="flex items-center justify-between gap-2">
        <h2 className="font-medium">Results</h2>
        <button type="button" data-testid="queue-results-dismiss" onClick={onDismiss} className="text-xs underline focus-visible:outline-2 focus-visible:outline-blue-600">Dismiss</button>
      </div>
      <ul role="status" aria-live="polite" className="mt-2 space-y-1">
        {results.map(({ id, summary, outcome }) => (
          <li key={id} data-testid={`queue-result-${id}`} data-outcome={outcome.state === 'error' ? outcome.code : outcome.state} className="flex flex-wrap gap-x-2">
            <span className={outcome.state === 'error' ? 'font-medium text-red-700 dark:text-red-300' : outcome.state === 'done' ? 'font-medium text-green-800 dark:text-green-300' : 'text-zinc-500'}>
              {outcome.state === 'error' ? '✗' : outcome.state === 'done' ? '✓' : '…'} {describe(outcome)}
            </span>
            <span className="min-w-0 text-zinc-600 dark:text-zinc-400"><PayloadText value={summary} mono={false} flagNonAscii={false} /></span>
          </li>
        ))}
      </ul>
    </section>
  );
}
