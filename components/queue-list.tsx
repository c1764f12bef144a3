'use client';

import { useInfiniteQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { usePathname, useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState, useTransition } from 'react';
import { fetchQueuePage, OperatorApiError, postDecision } from '@/lib/client/operator-api';
import { countText, isMine, needsLook, QUEUE_SCAN_LIMIT, queueViewSearch, type QueueGroup, type QueueItem, type QueuePage, type QueueView } from '@/lib/proposals/queue-view';
import { oneKeyReady } from './fresh-facts';
import { ApproveDialog, RejectDialog } from './queue-dialogs';
import { QueueFilters } from './queue-filters';
import { QueuePreview } from './queue-preview';
import { QueueResults, type DecisionOutcome, type DecisionResult } from './queue-results';
import { QueueRow, QueueSkeleton } from './queue-row';
import { QueueTabs } from './queue-tabs';
import { ZoneNote } from './queue-times';
import { ShortcutsHelp } from './shortcuts-help';
import { usePageKeys } from './use-page-keys';

async function loadQueue(tenantId: string, view: QueueView, cursor: string | null): Promise<QueuePage> {
  const result = await fetchQueuePage(tenantId, view, cursor);
  if (!result.ok) throw new OperatorApiError({ ...result.problem, message: `The queue could not be loaded: ${result.problem.message}` });
  return result.value;
}

const sessionEndedBy = (error: unknown) => error instanceof OperatorApiError && error.problem.status === 401;

type Outcome = DecisionOutcome & { sessionEnded?: boolean };

async function decideItem(item: QueueItem, decision: 'approve' | 'reject', reason?: string): Promise<Outcome> {
  const result = await postDecision(item.id, { decision, payloadHash: item.payloadHash, ...(reason ? { reason } : {}) });
  if (!result.ok) return { state: 'error', code: result.problem.code, message: result.problem.message, sessionEnded: result.problem.status === 401 };
  const answer = result.value;
  const approvals = answer.decisions?.filter((d) => d.decision === 'approve').length ?? item.approvals.have + 1;
  const more = Math.max((answer.routing?.approvals ?? item.approvals.need) - approvals, 0);
  return { state: 'done', decision, status: answer.status, more };
}

const rowLink = (id: string) =>
  document.querySelector<HTMLElement>(`[data-testid="queue-item"][data-proposal-id="${CSS.escape(id)}"] [data-testid="queue-item-link"]`);

export type QueueListProps = {
  tenantId: string;
  view: QueueView;
  initial: QueuePage;
  actions: string[];
  agents: string[];
  /** Viewers read; approvers and admins decide. */
  canDecide: boolean;
};

/**
 * The queue: grouped by whose move it is, filters in the URL, keyset pages with "Load more", a 5 s
 * refresh where new proposals wait behind a "N new — show" bar (rows never move under the cursor),
 * a preview of the focused item beside the list on large screens, keyboard and batch decisions.
 *
 * `a` approves a clear item at once (low risk, no flags, unchanged since proposed); anything else,
 * and every batch, asks to confirm with what should stop a fast approval in view.
 */
export function QueueList({ tenantId, view, initial, actions, agents, canDecide }: QueueListProps) {
  const router = useRouter();
  const pathname = usePathname();
  const queryClient = useQueryClient();
  const [navigating, startNavigation] = useTransition();
  const [decisionSessionEnded, setDecisionSessionEnded] = useState(false);
  const queryKey = useMemo(() => ['queue', tenantId, view] as const, [tenantId, view]);
  const query = useInfiniteQuery<QueuePage, Error, InfiniteData<QueuePage, string | null>, typeof queryKey, string | null>({
    queryKey,
    queryFn: ({ pageParam }) => loadQueue(tenantId, view, pageParam),
    initialPageParam: null,
    getNextPageParam: (last) => last.nextCursor,
    initialData: { pages: [initial], pageParams: [null] },
    // A session that ended stays ended: no retries, no refresh.
    retry: (failures, error) => !sessionEndedBy(error) && failures < 2,
    refetchInterval: (q) => (decisionSessionEnded || sessionEndedBy(q.state.error) ? false : 5_000),
  });
  const sessionEnded = decisionSessionEnded || sessionEndedBy(query.error);

  // Proposals created after `seenUntil` wait behind the "N new" bar until the reader asks for them.
  const [seenUntil, setSeenUntil] = useState(() => Date.parse(initial.asOf));
  const all = useMemo(() => {
    const seen = new Set<string>();
    const out: QueueItem[] = [];
    for (const page of query.data?.pages ?? []) {
      for (const item of page.items) {
        if (seen.has(item.id)) continue;
        seen.add(item.id);
        out.push(item);
      }
    }
    return out;
  }, [query.data]);
  const items = useMemo(() => all.filter((item) => Date.parse(item.createdAt) <= seenUntil), [all, seenUntil]);
  const newCount = all.length - items.length;
  const firstPage = query.data?.pages[0] ?? initial;
  const { total, counts, countsExact } = firstPage;
  const latestAsOf = firstPage.asOf;

  // The focused row is remembered by id; when it leaves, focus stays at the same position.
  const [focus, setFocus] = useState<{ id: string | null; index: number }>({ id: null, index: 0 });
  const found = focus.id ? items.findIndex((item) => item.id === focus.id) : -1;
  const focusIndex = items.length === 0 ? -1 : found >= 0 ? found : Math.min(focus.index, items.length - 1);
  const focused = focusIndex >= 0 ? items[focusIndex] : undefined;

  const [selectedIds, setSelectedIds] = useState<Set<string>>(() => new Set());
  const [pending, setPending] = useState<Map<string, 'approve' | 'reject'>>(() => new Map());
  const selected = useMemo(() => items.filter((item) => selectedIds.has(item.id) && isMine(item) && !pending.has(item.id)), [items, selectedIds, pending]);
  const [approving, setApproving] = useState<QueueItem[]>([]);
  const [rejecting, setRejecting] = useState<QueueItem[]>([]);
  const [helpOpen, setHelpOpen] = useState(false);
  const [results, setResults] = useState<DecisionResult[]>([]);
  // Time left and age are computed against the moment the data arrived (it refreshes every 5 s).
  const now = useMemo(() => new Date(query.dataUpdatedAt || Date.parse(initial.asOf)), [query.dataUpdatedAt, initial.asOf]);

  useEffect(() => {
    const waiting = counts['needs-you'];
    document.title = waiting > 0 ? `(${countText(waiting, countsExact)}) Queue · Countersign` : 'Queue · Countersign';
  }, [counts, countsExact]);

  // Moving focus after a render (a dialog closing first gives focus back where it was, then this runs).
  // moveTo sets both: the state renders the row as focused, then this puts the browser's focus there.
  const focusTarget = useRef<string | null>(null);
  useEffect(() => {
    const id = focusTarget.current;
    if (!id || approving.length > 0 || rejecting.length > 0) return;
    const link = rowLink(id);
    if (!link) return;
    focusTarget.current = null;
    link.focus({ preventScroll: true });
    link.closest('[data-testid="queue-item"]')?.scrollIntoView({ block: 'nearest' });
  });

  const moveTo = useCallback((index: number) => {
    const item = items[index];
    if (!item) return;
    focusTarget.current = item.id;
    setFocus({ id: item.id, index });
  }, [items]);

  /** The next item after `from` that is still the viewer's to decide (wrapping around), skipping `leaving`. */
  const nextNeedingYou = useCallback((from: number, leaving: Set<string>): number => {
    for (let step = 1; step < items.length; step++) {
      const index = (from + step) % items.length;
      const item = items[index]!;
      if (isMine(item) && !pending.has(item.id) && !leaving.has(item.id)) return index;
    }
    return -1;
  }, [items, pending]);

  const toggle = useCallback((id: string) => {
    setSelectedIds((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);

  const decide = useCallback(async (targets: QueueItem[], decision: 'approve' | 'reject', reason?: string) => {
    setApproving([]);
    setRejecting([]);
    const ids = new Set(targets.map((item) => item.id));
    // Focus goes on to the next item that needs the viewer, not onto one on its way out.
    if (focused && ids.has(focused.id)) {
      const next = nextNeedingYou(focusIndex, ids);
      if (next >= 0) moveTo(next);
    }
    setPending((current) => new Map([...current, ...targets.map((item) => [item.id, decision] as const)]));
    setResults((current) => [
      ...targets.map((item): DecisionResult => ({ id: item.id, summary: item.summary, outcome: { state: 'sending', decision } })),
      ...current.filter((result) => !ids.has(result.id)),
    ].slice(0, 100));
    // One request per item, each with its own hash; each reports its own result.
    for (const item of targets) {
      const { sessionEnded: ended, ...outcome } = await decideItem(item, decision, reason);
      if (ended) setDecisionSessionEnded(true);
      setResults((current) => current.map((result) => (result.id === item.id ? { ...result, outcome } : result)));
    }
    setSelectedIds((current) => new Set([...current].filter((id) => !ids.has(id))));
    await queryClient.invalidateQueries({ queryKey });
    setPending((current) => new Map([...current].filter(([id]) => !ids.has(id))));
  }, [focused, focusIndex, nextNeedingYou, moveTo, queryClient, queryKey]);

  /** `a`: a clear item whose facts were just checked clear is approved at once; anything else asks first, with what to look at. */
  const approveOne = useCallback((item: QueueItem) => {
    if (needsLook(item) || !oneKeyReady(queryClient, item.id)) setApproving([item]);
    else void decide([item], 'approve');
  }, [decide, queryClient]);

  const actionable = useCallback((item: QueueItem | undefined): item is QueueItem => (
    Boolean(item) && canDecide && !sessionEnded && isMine(item!) && !pending.has(item!.id)
  ), [canDecide, sessionEnded, pending]);

  // Marked once the keyboard shortcuts listen (after hydration): a key pressed earlier does nothing.
  const rootRef = useRef<HTMLDivElement>(null);
  const gridRef = useRef<HTMLDivElement>(null);

  usePageKeys((event) => {
    const target = event.target instanceof HTMLElement ? event.target : null;
    // Arrow keys, Home, End and Space belong to the grid only when focus is in it (or nowhere).
    const inGrid = !target || target === document.body || Boolean(gridRef.current?.contains(target));
    switch (event.key) {
      case 'j':
      case 'k':
      case 'ArrowDown':
      case 'ArrowUp': {
        if (event.key.startsWith('Arrow') && !inGrid) return;
        event.preventDefault();
        const down = event.key === 'j' || event.key === 'ArrowDown';
        moveTo(focusIndex < 0 ? 0 : down ? Math.min(focusIndex + 1, items.length - 1) : Math.max(focusIndex - 1, 0));
        break;
      }
      case 'Home':
      case 'End':
        if (!inGrid) return;
        event.preventDefault();
        moveTo(event.key === 'Home' ? 0 : items.length - 1);
        break;
      case 'Enter':
        // A focused link or button does its own thing on Enter.
        if (target?.closest('a, button')) return;
        if (focused) router.push(`/proposals/${focused.id}`);
        break;
      case 'o':
        if (focused) router.push(`/proposals/${focused.id}`);
        break;
      case 'a':
        if (!actionable(focused)) return;
        event.preventDefault();
        approveOne(focused);
        break;
      case 'r':
        if (!actionable(focused)) return;
        event.preventDefault();
        setRejecting([focused]);
        break;
      case 'x':
      case ' ':
        if (event.key === ' ' && !inGrid) return;
        if (!actionable(focused)) return;
        event.preventDefault();
        toggle(focused.id);
        break;
      case '?':
        event.preventDefault();
        setHelpOpen(true);
        break;
    }
  }, rootRef);

  // The view being navigated to: a second change before the page arrives builds on the first.
  const [draft, setDraft] = useState(view);
  const changeView = (next: QueueView) => {
    setDraft(next);
    startNavigation(() => router.replace(`${pathname}${queueViewSearch(next)}`, { scroll: false }));
  };

  const filtered = Boolean(view.action || view.agent || view.risk);
  const selectable = items.filter((item) => isMine(item) && !pending.has(item.id));
  const allSelected = selectable.length > 0 && selected.length === selectable.length;
  const signInAgain = `/signin?callbackUrl=${encodeURIComponent(`${pathname}${queueViewSearch(view)}`)}`;
  const buttonsDisabled = sessionEnded;

  return (
    <div ref={rootRef} data-testid="queue" data-session-ended={sessionEnded ? 'true' : undefined}>
      <QueueTabs view={draft} counts={counts} exact={countsExact} onChange={(group: QueueGroup) => changeView({ ...draft, group })} />
      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <QueueFilters view={draft} actions={actions} agents={agents} onChange={changeView} />
      </div>

      {sessionEnded ? (
        <div role="alert" data-testid="queue-session-ended" className="mb-3 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100">
          Your session ended — nothing more can be decided here until you{' '}
          <a href={signInAgain} data-testid="queue-sign-in-again" className="font-medium underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-blue-600">Sign in again</a>
          {' '}(you come back to this view).
        </div>
      ) : null}

      <QueueResults results={results} onDismiss={() => setResults([])} />

      {query.error && !sessionEnded ? (
        <div role="alert" data-testid="queue-error" className="mb-3 rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
          {query.error.message} {all.length > 0 ? 'Showing the list as last loaded; ' : ''}retrying every 5 s.{' '}
          <button type="button" data-testid="queue-retry" onClick={() => void query.refetch()} className="underline">Retry now</button>
        </div>
      ) : null}

      <div className="lg:grid lg:grid-cols-[minmax(0,1fr)_22rem] lg:items-start lg:gap-4 xl:grid-cols-[minmax(0,1fr)_26rem]">
        <div className="min-w-0">
          {newCount > 0 ? (
            <button
              type="button"
              data-testid="queue-new-bar"
              onClick={() => setSeenUntil(Math.max(seenUntil, Date.parse(latestAsOf), ...all.map((item) => Date.parse(item.createdAt))))}
              className="mb-2 w-full rounded-lg border border-blue-300 bg-blue-50 px-4 py-2 text-sm font-medium text-blue-900 hover:bg-blue-100 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-blue-800 dark:bg-blue-950 dark:text-blue-200"
            >
              {newCount} new — show
            </button>
          ) : null}

          {navigating || (query.isPending && all.length === 0) ? (
            <QueueSkeleton />
          ) : items.length === 0 ? (
            <QueueEmpty
              view={view}
              filtered={filtered}
              canDecide={canDecide}
              waiting={counts.waiting > 0 ? countText(counts.waiting, countsExact) : null}
              further={query.hasNextPage ? { looked: (query.data?.pages.length ?? 1) * QUEUE_SCAN_LIMIT, busy: query.isFetchingNextPage, onLook: () => void query.fetchNextPage() } : undefined}
              onClear={() => changeView({ group: draft.group, sort: draft.sort })}
              onGroup={(group) => changeView({ ...draft, group })}
            />
          ) : (
            <>
              {canDecide ? (
                <div className="mb-2 flex flex-wrap items-center gap-2 text-sm">
                  <label className="flex items-center gap-2 px-3 sm:px-4">
                    <input
                      type="checkbox"
                      data-testid="queue-select-all"
                      checked={allSelected}
                      disabled={buttonsDisabled || selectable.length === 0}
                      onChange={() => setSelectedIds(allSelected ? new Set() : new Set(selectable.map((item) => item.id)))}
                      className="h-6 w-6 accent-blue-700"
                    />
                    Select all
                  </label>
                  <button type="button" data-testid="queue-approve-selected" disabled={buttonsDisabled || selected.length === 0} onClick={() => setApproving(selected)} className="rounded-md bg-blue-700 px-3 py-1.5 font-medium text-white hover:bg-blue-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:opacity-50">
                    Approve {selected.length} selected
                  </button>
                  <button type="button" data-testid="queue-reject-selected" disabled={buttonsDisabled || selected.length === 0} onClick={() => setRejecting(selected)} className="rounded-md border border-red-700 px-3 py-1.5 font-medium text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:opacity-50 dark:text-red-300 dark:hover:bg-red-950">
                    Reject {selected.length} selected…
                  </button>
                </div>
              ) : (
                <p data-testid="queue-read-only" className="mb-2 text-sm text-zinc-600 dark:text-zinc-400">You can read the queue; deciding needs the approver role.</p>
              )}
              <div
                ref={gridRef}
                role="grid"
                aria-label={`Pending proposals: ${view.group === 'needs-you' ? 'needing you' : view.group === 'waiting' ? 'waiting on others' : 'all'}`}
                aria-multiselectable={canDecide || undefined}
                aria-disabled={sessionEnded || undefined}
                data-testid="queue-list"
                className="divide-y divide-zinc-200 overflow-hidden rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900"
              >
                {items.map((item, index) => (
                  <QueueRow
                    key={item.id}
                    item={item}
                    focused={index === focusIndex}
                    selected={selectedIds.has(item.id)}
                    canDecide={canDecide}
                    disabled={sessionEnded}
                    pending={pending.get(item.id)}
                    now={now}
                    onToggle={toggle}
                    onFocusRow={(id) => setFocus({ id, index })}
                  />
                ))}
              </div>
              {query.hasNextPage ? (
                <button type="button" data-testid="queue-load-more" disabled={query.isFetchingNextPage || sessionEnded} onClick={() => void query.fetchNextPage()} className="mt-3 w-full rounded-lg border border-zinc-300 py-2 text-sm hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-600 disabled:opacity-60 dark:border-zinc-700 dark:hover:bg-zinc-800">
                  {query.isFetchingNextPage ? 'Loading…' : `Load more (${items.length} of ${countText(total, countsExact)} shown)`}
                </button>
              ) : null}
            </>
          )}
        </div>
        <div className="hidden lg:sticky lg:top-4 lg:block">
          <QueuePreview
            item={focused}
            now={now}
            disabled={!actionable(focused)}
            onApprove={(item) => setApproving([item])}
            onReject={(item) => setRejecting([item])}
          />
        </div>
      </div>

      <p data-testid="queue-keys" className="mt-3 flex flex-wrap items-center gap-x-2 text-xs text-zinc-600 dark:text-zinc-400">
        <span>j/k or ↑/↓ move · enter open{canDecide ? ' · a approve · r reject · x select' : ''} ·</span>
        <button type="button" data-testid="shortcuts-help-open" onClick={() => setHelpOpen(true)} className="underline focus-visible:outline-2 focus-visible:outline-blue-600">? keys</button>
        <span aria-hidden="true">·</span>
        <ZoneNote />
      </p>
      {canDecide ? (
        <p data-testid="queue-approve-rule" className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
          <kbd className="font-mono">a</kbd> approves a low-risk item with no flags at once; anything flagged, riskier or changed since proposed opens a confirmation first, and batches always do.
        </p>
      ) : null}

      <ApproveDialog items={approving} onClose={() => setApproving([])} onConfirm={() => void decide(approving, 'approve')} />
      <RejectDialog items={rejecting} onClose={() => setRejecting([])} onConfirm={(reason) => void decide(rejecting, 'reject', reason)} />
      <ShortcutsHelp open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  );
}

/** Where an empty page is not the end: the pending proposals looked at so far, and a way to look further. */
type Further = { looked: number; busy: boolean; onLook: () => void };

function QueueEmpty(props: { view: QueueView; filtered: boolean; canDecide: boolean; waiting: string | null; further?: Further; onClear: () => void; onGroup: (group: QueueGroup) => void }) {
  const { view, filtered, canDecide, waiting, further, onClear, onGroup } = props;
  const link = 'mt-2 text-sm underline focus-visible:outline-2 focus-visible:outline-blue-600';
  return (
    <div data-testid="queue-empty" className="rounded-lg border border-dashed border-zinc-300 p-10 text-center dark:border-zinc-700">
      {further ? (
        <>
          <p className="text-lg font-medium">Nothing here among the first {further.looked.toLocaleString('en')} pending proposals.</p>
          <button type="button" data-testid="queue-look-further" disabled={further.busy} onClick={further.onLook} className={link}>
            {further.busy ? 'Looking…' : 'Look further'}
          </button>
        </>
      ) : filtered ? (
        <>
          <p className="text-lg font-medium">Nothing here matches these filters.</p>
          <button type="button" data-testid="queue-empty-clear" onClick={onClear} className={link}>Clear filters</button>
        </>
      ) : view.group === 'needs-you' ? (
        <>
          <p className="text-lg font-medium">{canDecide ? 'Nothing needs you right now.' : 'Nothing needs you: viewers read the queue; deciding needs the approver role.'}</p>
          {waiting ? (
            <button type="button" data-testid="queue-empty-waiting" onClick={() => onGroup(canDecide ? 'waiting' : 'all')} className={link}>
              {canDecide ? `${waiting} waiting on others` : 'See everything pending'}
            </button>
          ) : null}
        </>
      ) : view.group === 'waiting' ? (
        <p className="text-lg font-medium">Nothing is waiting on others.</p>
      ) : (
        <>
          <p className="text-lg font-medium">Nothing is waiting for a decision.</p>
          <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
            Agents send proposals to <code className="font-mono">POST /api/v1/proposals</code> with their key; see
            “Connect an agent” in the README.
          </p>
        </>
      )}
    </div>
  );
}
