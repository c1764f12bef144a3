'use client';

import { type InfiniteData, useInfiniteQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { fetchQueuePage, OperatorApiError } from '@/lib/client/operator-api';
import { mergePages, showNewUntil, shownItems } from '@/lib/client/queue-state';
import type { QueuePage, QueueView } from '@/lib/shared/queue-view';

async function loadQueue(tenantId: string, view: QueueView, cursor: string | null): Promise<QueuePage> {
  const result = await fetchQueuePage(tenantId, view, cursor);
  if (!result.ok)
    throw new OperatorApiError({
      ...result.problem,
      message: `The queue could not be loaded: ${result.problem.message}`,
    });
  return result.value;
}

/** The cache key of one view's pages (decisions refresh it). */
export type QueueQueryKey = readonly ['queue', string, QueueView];
export const useQueueQueryKey = (tenantId: string, view: QueueView): QueueQueryKey =>
  useMemo(() => ['queue', tenantId, view] as const, [tenantId, view]);

export const sessionEndedBy = (error: unknown) => error instanceof OperatorApiError && error.problem.status === 401;

/**
 * The queue's pages: keyset pages with "Load more", a 5 s refresh (stopped once the session ended,
 * by this query or by a decision: `stopped`), and new proposals held behind the "N new" bar.
 */
export function useQueuePaging(queryKey: QueueQueryKey, initial: QueuePage, stopped: boolean) {
  const [, tenantId, view] = queryKey;
  const query = useInfiniteQuery<
    QueuePage,
    Error,
    InfiniteData<QueuePage, string | null>,
    QueueQueryKey,
    string | null
  >({
    queryKey,
    queryFn: ({ pageParam }) => loadQueue(tenantId, view, pageParam),
    initialPageParam: null,
    getNextPageParam: (last) => last.nextCursor,
    initialData: { pages: [initial], pageParams: [null] },
    // A session that ended stays ended: no retries, no refresh.
    retry: (failures, error) => !sessionEndedBy(error) && failures < 2,
    refetchInterval: (q) => (stopped || sessionEndedBy(q.state.error) ? false : 5_000),
  });

  // Proposals created after `seenUntil` wait behind the "N new" bar until the reader asks for them.
  const [seenUntil, setSeenUntil] = useState(() => Date.parse(initial.asOf));
  const all = useMemo(() => mergePages(query.data?.pages ?? []), [query.data]);
  const items = useMemo(() => shownItems(all, seenUntil), [all, seenUntil]);
  const firstPage = query.data?.pages[0] ?? initial;
  // Time left and age are computed against the moment the data arrived (it refreshes every 5 s).
  const now = useMemo(
    () => new Date(query.dataUpdatedAt || Date.parse(initial.asOf)),
    [query.dataUpdatedAt, initial.asOf],
  );

  return {
    query,
    all,
    items,
    newCount: all.length - items.length,
    showNew: () => setSeenUntil(showNewUntil(seenUntil, firstPage.asOf, all)),
    total: firstPage.total,
    counts: firstPage.counts,
    countsExact: firstPage.countsExact,
    now,
    sessionEnded: sessionEndedBy(query.error),
  };
}
