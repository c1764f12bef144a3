import { useSyncExternalStore } from 'react';
import type { ApiProblem } from './operator-api';

/**
 * "Your session ended": once any operator request on a page answers 401, every control on it that
 * would send another one is disabled and the page offers to sign in again, back to where it was.
 * Client-safe; one flag per page load (a fresh page after signing in starts without it).
 */

let ended = false;
const listeners = new Set<() => void>();

/** True when the refusal means the person is no longer signed in. */
export function isSessionEnded(problem: ApiProblem): boolean {
  return problem.status === 401;
}

/** Marks the session as ended for every component of this page. */
export function markSessionEnded(): void {
  if (ended) return;
  ended = true;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether a request on this page found the session ended. */
export function useSessionEnded(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => ended,
    () => false,
  );
}

/** The sign-in page, returning to `returnTo` (the sign-in page keeps only same-site paths: lib/auth/return-to.ts). */
export function signInAgainHref(returnTo: string): string {
  return `/signin?callbackUrl=${encodeURIComponent(returnTo)}`;
}
