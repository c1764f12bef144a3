'use client';

import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { LoadError, LoadingBlocks, StaleNotice } from './notification-ui';

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
  if (query.isPending) return <LoadingBlocks testId={`${name}-loading`} label={`Loading ${what}`} heights={heights} />;
  if (query.data === undefined) {
    return (
      <LoadError
        testId={`${name}-error`}
        what={what.charAt(0).toUpperCase() + what.slice(1)}
        error={query.error}
        onRetry={() => void query.refetch()}
      />
    );
  }
  return (
    <div className="space-y-8">
      {query.isRefetchError ? <StaleNotice testId={`${name}-stale`} error={query.error} /> : null}
      {children(query.data)}
    </div>
  );
}
