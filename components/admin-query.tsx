'use client';

import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { SECONDARY_BUTTON } from './notification-ui';

type Props<T> = {
  query: UseQueryResult<T>;
  /** Names the test ids (`<name>-loading`, `-error`, `-stale`). */
  name: string;
  /** What is loading, in words: "the members". */
  what: string;
  /** The skeleton's blocks, in rem, as high as the final layout's sections. */
  heights: number[];
  children: (data: T) => ReactNode;
};

/**
 * A settings page's one query, in every state: a skeleton of the final layout while loading, what
 * failed with "Try again" when nothing loaded, and a notice above the old data when a refresh failed.
 */
export function AdminQuery<T>({ query, name, what, heights, children }: Props<T>) {
  if (query.isPending) {
    return (
      <div data-testid={`${name}-loading`} aria-busy="true" aria-label={`Loading ${what}`} className="space-y-4">
        {heights.map((rem, i) => (
          <div key={i} className="animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" style={{ height: `${rem}rem` }} />
        ))}
      </div>
    );
  }
  if (query.data === undefined) {
    return (
      <div role="alert" data-testid={`${name}-error`} className="space-y-2 rounded-md border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
        <p>{what.charAt(0).toUpperCase() + what.slice(1)} could not be loaded: {query.error?.message}</p>
        <button type="button" onClick={() => void query.refetch()} className={SECONDARY_BUTTON}>Try again</button>
      </div>
    );
  }
  return (
    <div className="space-y-8">
      {query.isRefetchError ? (
        <p role="status" data-testid={`${name}-stale`} className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm dark:border-amber-800 dark:bg-amber-950">
          Could not refresh ({query.error.message}); showing what was loaded before.
        </p>
      ) : null}
      {children(query.data)}
    </div>
  );
}
