'use client';

import Link from 'next/link';
import { useSyncExternalStore } from 'react';
import { postGrant } from '@/lib/client/grants-api';
import { isSessionEnded, markSessionEnded } from '@/lib/client/session';
import type { GrantView } from '@/lib/grants/list';
import type { GrantRequest } from '@/lib/grants/requests';
import { clockText, ViewerTime } from './viewer-time';

/**
 * What became of the grant asked for beside an approval. Kept per proposal for the tab's life, out
 * of the decision panel: the approval refreshes the page, which takes the panel away, and the
 * outcome must still be read there.
 */
export type GrantOutcome = { made: true; grant: GrantView } | { made: false; message: string };

const outcomes = new Map<string, GrantOutcome>();
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Asks for the grant (after the approval was recorded: a refused grant leaves the approval as it
 * is) and keeps the outcome for GrantOutcomeNote. Never throws.
 */
export async function requestGrant(request: GrantRequest): Promise<GrantOutcome> {
  const result = await postGrant(request);
  if (!result.ok && isSessionEnded(result.problem)) markSessionEnded();
  const outcome: GrantOutcome = result.ok
    ? { made: true, grant: result.value }
    : { made: false, message: result.problem.message };
  outcomes.set(request.proposalId, outcome);
  for (const listener of listeners) listener();
  return outcome;
}

/** The outcome in one sentence, for a message left on the next page (times in the viewer's zone). */
export function grantOutcomeWords(outcome: GrantOutcome): string {
  return outcome.made
    ? `Grant ${outcome.grant.id} approves proposals like it until ${clockText(new Date(outcome.grant.expiresAt))}.`
    : `The grant was not made: ${outcome.message}`;
}

/**
 * Beside the decision: the grant made (its id, until when, how many) or why it was refused while the approval stands.
 */
export function GrantOutcomeNote({ proposalId }: { proposalId: string }) {
  const outcome = useSyncExternalStore(
    subscribe,
    () => outcomes.get(proposalId),
    () => undefined,
  );
  return (
    <div role="status" className="empty:hidden">
      {!outcome ? null : outcome.made ? (
        <p
          data-testid="grant-made"
          data-grant-id={outcome.grant.id}
          className={
            'mt-3 rounded-md border border-green-300 bg-green-50 p-3 text-sm text-green-900 dark:border-green-800 ' +
            'dark:bg-green-950 dark:text-green-200'
          }
        >
          Standing grant <span className="font-mono">{outcome.grant.id}</span> made: up to {outcome.grant.maxCount}{' '}
          proposal{outcome.grant.maxCount === 1 ? '' : 's'} like this are approved in your name until{' '}
          <ViewerTime value={outcome.grant.expiresAt} testId="grant-made-until" />.{' '}
          <Link href="/history/grants" className="font-medium underline">
            History → Grants
          </Link>
        </p>
      ) : (
        <p
          data-testid="grant-refused"
          className={
            'mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 ' +
            'dark:bg-amber-950 dark:text-amber-200'
          }
        >
          The approval stands, but the grant was not made: {outcome.message}
        </p>
      )}
    </div>
  );
}
