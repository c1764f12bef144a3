import Link from 'next/link';
import type { PolicyPlan } from '@/lib/policy/plan';
import { flipCounts, flipInWords } from '@/lib/shared/policy-words';

/**
 * Before publishing: the change in words and the backtest — counts by kind, then each flipping
 * proposal with a link. `words`: the editor's own wording of the change (money in major units
 * beside the currency) in place of the server's, which writes bounds as stored.
 */
export function PolicyPlanView({ plan, words }: { plan: PolicyPlan; words?: string[] }) {
  const { changes, backtest } = plan;
  return (
    <div
      role="status"
      data-testid="policy-plan"
      data-flips={backtest.flips.length}
      className={
        'space-y-3 rounded-md border border-blue-300 bg-blue-50 p-3 text-sm dark:border-blue-800 dark:bg-blue-950'
      }
    >
      {changes.length === 0 ? (
        <p data-testid="plan-no-change" className="font-medium">
          This draft changes nothing: publishing it would make no new version.
        </p>
      ) : (
        changes.map((change) => (
          <div key={change.action} className="space-y-1">
            <p className="font-medium">
              The change, v{change.version} → v{change.nextVersion}
            </p>
            <ul data-testid="plan-changes" className="list-disc space-y-1 pl-5">
              {(words ?? change.words).map((line) => (
                <li key={line} className="break-words">
                  {line}
                </li>
              ))}
            </ul>
          </div>
        ))
      )}
      <div className="space-y-1">
        <p data-testid="plan-backtest" className="font-medium">
          Backtest: {backtest.proposals} proposal{backtest.proposals === 1 ? '' : 's'} of the last {backtest.days} day
          {backtest.days === 1 ? '' : 's'} replayed
          {backtest.truncated ? ` (the newest ${backtest.limit.toLocaleString('en')}; there were more)` : ''} ·{' '}
          {backtest.flips.length} would be routed differently.
        </p>
        {backtest.flips.length > 0 ? (
          <>
            <ul data-testid="plan-counts" className="space-y-0.5">
              {flipCounts(backtest.flips).map(({ words, count }) => (
                <li key={words}>
                  {count} × {words}
                </li>
              ))}
            </ul>
            <ul data-testid="plan-flips" className="max-h-72 space-y-1 overflow-y-auto">
              {backtest.flips.map((flip) => (
                <li
                  key={flip.proposalId}
                  data-testid="plan-flip"
                  data-proposal-id={flip.proposalId}
                  className="break-words"
                >
                  <Link href={`/proposals/${encodeURIComponent(flip.proposalId)}`} className="font-medium underline">
                    {flip.summary}
                  </Link>{' '}
                  <span className="font-mono text-xs">{flip.proposalId}</span>: {flipInWords(flip)}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </div>
    </div>
  );
}
