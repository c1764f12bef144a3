import type { ChainStatus } from '@/lib/jobs/watch-audit-chain';
import { ViewerTime } from './viewer-time';

/**
 * Whether the tenant's chain verifies (docs/design.md §8), as the watch job last found it, and the
 * signed checkpoint an auditor saves to detect a rolled-back tail later. A break is shown to
 * admins as a red banner naming where it broke and what to run.
 */
export function HistoryChain({
  status,
  reasonWords,
  isAdmin,
}: {
  status: ChainStatus;
  reasonWords?: string;
  isAdmin: boolean;
}) {
  return (
    <div className="space-y-2">
      {status.state === 'broken' && isAdmin ? (
        <div
          role="alert"
          data-testid="chain-broken"
          className={
            'rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 ' +
            'dark:bg-red-950 dark:text-red-200'
          }
        >
          <strong>The audit chain is broken at #{status.seq}</strong>: {reasonWords ?? status.reason}. Run{' '}
          <code className="font-mono">npm run cli -- audit:verify</code> to see every finding, and treat events from #
          {status.seq} on as unverified.
        </div>
      ) : null}
      <p data-testid="chain-status" data-state={status.state} className="text-sm">
        {status.state === 'verified' ? (
          <>
            <span aria-hidden="true" className="text-green-700 dark:text-green-400">
              ✓{' '}
            </span>
            Chain verified through #{status.throughSeq} at <ViewerTime value={status.at.toISOString()} />
          </>
        ) : status.state === 'broken' ? (
          <span className="text-red-700 dark:text-red-400">Chain broken at #{status.seq}</span>
        ) : (
          'Chain not verified yet (the worker re-verifies it continuously).'
        )}
      </p>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        <a href="/api/v1/audit/checkpoint" download data-testid="checkpoint-download" className="underline">
          Download signed checkpoint
        </a>{' '}
        — a signed statement of the chain&apos;s current head; keep it, and{' '}
        <code className="font-mono text-xs">audit:verify --checkpoint</code> will later prove no event up to it was
        removed or rewritten.
      </p>
    </div>
  );
}
