import { Button } from '../ui/button';

type Props = { sessionEnded: boolean; signInAgain: string; error: Error | null; shown: boolean; onRetry: () => void };

/** Above the list: the session ended (and how to come back to this view), or the list could not be loaded. */
export function QueueNotices({ sessionEnded, signInAgain, error, shown, onRetry }: Props) {
  return (
    <>
      {sessionEnded ? (
        <div
          role="alert"
          data-testid="queue-session-ended"
          className={
            'mb-3 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 ' +
            'dark:bg-amber-950 dark:text-amber-100'
          }
        >
          Your session ended — nothing more can be decided here until you{' '}
          <a
            href={signInAgain}
            data-testid="queue-sign-in-again"
            className="font-medium underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-blue-600"
          >
            Sign in again
          </a>{' '}
          (you come back to this view).
        </div>
      ) : null}
      {error && !sessionEnded ? (
        <div
          role="alert"
          data-testid="queue-error"
          className={
            'mb-3 rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 ' +
            'dark:bg-red-950 dark:text-red-200'
          }
        >
          {error.message} {shown ? 'Showing the list as last loaded; ' : ''}retrying every 5 s.{' '}
          <Button variant="link" data-testid="queue-retry" onClick={onRetry}>
            Retry now
          </Button>
        </div>
      ) : null}
    </>
  );
}
