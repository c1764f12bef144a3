import Link from 'next/link';
import { PayloadText } from './payload-text';
import { ViewerTime } from './viewer-time';

export type PausedView = { pausedAt: string; pausedBy: string | null; reason: string | null };

/** Shown on every dashboard page while the tenant's executions are paused (the emergency stop). */
export function ExecutionsBanner({ paused, isAdmin }: { paused: PausedView; isAdmin: boolean }) {
  return (
    <div
      role="status"
      data-testid="executions-paused-banner"
      className={
        'border-b border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-800 dark:bg-amber-950 ' +
        'dark:text-amber-100'
      }
    >
      <p className="mx-auto max-w-7xl px-4 py-2 text-sm">
        <strong>Executions are paused.</strong> Paused by{' '}
        <span data-testid="executions-paused-by">{paused.pausedBy ?? 'the command line'}</span> at{' '}
        <ViewerTime value={paused.pausedAt} testId="executions-paused-at" />. Approved commands wait and no proposal
        expires until an admin resumes.
        {paused.reason ? (
          <>
            {' '}
            Reason: <PayloadText value={paused.reason} mono={false} />
          </>
        ) : null}
        {isAdmin ? (
          <>
            {' '}
            <Link
              href="/settings#executions"
              className="font-medium underline underline-offset-2"
              data-testid="executions-banner-resume-link"
            >
              Resume in Settings
            </Link>
          </>
        ) : null}
      </p>
    </div>
  );
}
