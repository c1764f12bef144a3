'use client';

import { useInfiniteQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { usePathname, useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState, useTransition } from 'react';
import { fetchQueuePage, postDecision } from '@/lib/client/operator-api';
import { queueViewSearch, type QueueItem, type QueuePage, type QueueView } from '@/lib/proposals/queue-view';
import { ApproveDialog, RejectDialog } from './queue-dialogs';
import { QueueFilters } from './queue-filters';
import { QueueResults, type DecisionOutcome, type DecisionResult } from './queue-results';
import { QueueRow, QueueSkeleton } from './queue-row';
import { ShortcutsHelp } from './shortcuts-help';

async function loadQueue(tenantId: string, view: QueueView, cursor: string | null): Promise<QueuePage> {
  const result = await fetchQueuePage(tenantId, view, cursor);
  if (!result.ok) throw new Error(`The queue could not be loaded: ${result.problem.message}`);
  return result.value;
}

async function decideItem(item: QueueItem, decision: 'approve' | 'reject', reason?: string): Promise<DecisionOutcome> {
  const result = await postDecision(item.id, { decision, payloadHash: item.payloadHash, ...(reason ? { reason } : {}) });
  if (!result.ok) return { state: 'error', code: result.problem.code, message: result.problem.message };
  return { state: 'done', decision, status: result.value.status };
}

/** Typing in a field (not ticking a box) keeps its keys. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit'].includes(target.type);
}

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
 * The queue: filters in the URL, keyset pages with "Load more", a 5 s refresh where new proposals
 * wait behind a "N new — show" bar (rows never move under the cursor), keyboard and batch decisions.
 */
export function QueueList({ tenantId, view, initial, actions, agents, canDecide }: QueueListProps) {
  const router = useRouter();
  const pathname = usePathname();
  const queryClient = useQueryClient();
  const [navigating, startNavigation] = useTransition();
  const queryKey = useMemo(() => ['queue', tenantId, view] as const, [tenantId, view]);
  const query = useInfiniteQuery<QueuePage, Error, InfiniteData<QueuePage, string | null>, typeof queryKey, string | null>({
    queryKey,
    queryFn: ({ pageParam }) => loadQueue(tenantId, view, pageParam),
    initialPageParam: null,
    getNextPageParam: (last) => last.nextCursor,
    initialData: { pages: [initial], pageParams: [null] },
    refetchInterval: 5_000,
  });

  // Proposals created after `seenUntil` wait behind the "N new" bar until the reader asks for them.
  const [seenUntil, setSeenUntil] = useState(() => Date.parse(initial.asOf));
  const all = useMemo(() => {
    const seen = new Set<string>();
    const out: QueueItem[] = [];
    for (const page of query.data?.pages ?? []) for (const item of page.items) {
        if (seen.has(item.id)) continue;
        seen.add(item.id);
        out.push(item);
      }
    return out;
  }, [query.data]);
  const items = useMemo(() => all.filter((item) => Date.parse(item.createdAt) <= seenUntil), [all, seenUntil]);
  const newCount = all.length - items.length;
  const total = query.data?.pages[0]?.total ?? 0;
  const latestAsOf = query.data?.pages[0]?.asOf ?? initial.asOf;

  // The focused row is remembered by id; when it leaves, focus stays at the same position.
  const [focus, setFocus] = useState<{ id: string | null; index: number }>({ id: null, index: 0 });
  const found = focus.id ? items.findIndex((item) => item.id === focus.id) : -1;
  const focusIndex = items.length === 0 ? -1 : found >= 0 ? found : Math.min(focus.index, items.length - 1);
  const focused = focusIndex >= 0 ? items[focusIndex] : undefined;

  const [selectedIds, setSelectedIds] = useState<Set<string>>(() => new Set());
  const selected = useMemo(() => items.filter((item) => selectedIds.has(item.id)), [items, selectedIds]);
  const [approving, setApproving] = useState<QueueItem[]>([]);
  const [rejecting, setRejecting] = useState<QueueItem[]>([]);
  const [helpOpen, setHelpOpen] = useState(false);
  const [results, setResults] = useState<DecisionResult[]>([]);
  // Time left and age are computed against the moment the data arrived (it refreshes every 5 s).
  const now = useMemo(() => new Date(query.dataUpdatedAt || Date.parse(initial.asOf)), [query.dataUpdatedAt, initial.asOf]);

  useEffect(() => {
    document.title = total > 0 ? `(${total}) Queue · Countersign` : 'Queue · Countersign';
  }, [total]);

  const moveTo = useCallback((index: number) => {
    const item = items[index];
    if (!item) return;
    setFocus({ id: item.id, index });
    const row = document.querySelector<HTMLElement>(`[data-testid="queue-item"][data-proposal-id="${CSS.escape(item.id)}"]`);
    row?.querySelector<HTMLElement>('[data-testid="queue-item-link"]')?.focus({ preventScroll: true });
    row?.scrollIntoView({ block: 'nearest' });
  }, [items]);

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
    setResults(targets.map((item) => ({ id: item.id, summary: item.summary, outcome: { state: 'sending' } })));
    // One request per item, each with its own hash; each reports its own result.
    for (const item of targets) {
      const outcome = await decideItem(item, decision, reason);
      setResults((current) => current.map((result) => (result.id === item.id ? { ...result, outcome } : result)));
    }
    setSelectedIds((current) => new Set([...current].filter((id) => !targets.some((item) => item.id === id))));
    await queryClient.invalidateQueries({ queryKey });
  }, [queryClient, queryKey]);

  // Marked once the keyboard shortcuts listen (after hydration): a key pressed earlier does nothing.
  const rootRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTyping(event.target)) return;
      if (document.querySelector('dialog[open]')) return;
      const target = event.target instanceof HTMLElement ? event.target : null;
      switch (event.key) {
        case 'j':
          event.preventDefault();
          moveTo(Math.min(focusIndex + 1, items.length - 1));
          break;
        case 'k':
          event.preventDefault();
          moveTo(Math.max(focusIndex - 1, 0));
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
          if (!canDecide || !focused) return;
          event.preventDefault();
          setApproving([focused]);
          break;
        case 'r':
          if (!canDecide || !focused) return;
          event.preventDefault();
          setRejecting([focused]);
          break;
        case 'x':
          if (!canDecide || !focused) return;
          event.preventDefault();
          toggle(focused.id);
          break;
        case '?':
          event.preventDefault();
          setHelpOpen(true);
          break;
      }
    };
    window.addEventListener('keydown', onKey);
    rootRef.current?.setAttribute('data-keys-ready', 'true');
    return () => window.removeEventListener('keydown', onKey);
  }, [items, focusIndex, focused, canDecide, moveTo, toggle, router]);

  // The view being navigated to: a second change before the page arrives builds on the first.
  const [draft, setDraft] = useState(view);
  const changeView = (next: QueueView) => {
    setDraft(next);
    startNavigation(() => router.replace(`${pathname}${queueViewSearch(next)}`, { scroll: false }));
  };

  const filtered = Boolean(view.action || view.agent || view.risk);
  const allSelected = items.length > 0 && selected.length === items.length;

  return (
    <div ref={rootRef} data-testid="queue">
      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <QueueFilters view={draft} actions={actions} agents={agents} onChange={changeView} />
      </div>

      <QueueResults results={results} onDismiss={() => setResults([])} />

      {query.error ? (
        <div role="alert" data-testid="queue-error" className="mb-3 rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
          {query.error.message} {all.length > 0 ? 'Showing the list as last loaded; ' : ''}retrying every 5 s.{' '}
          <button type="button" data-testid="queue-retry" onClick={() => void query.refetch()} className="underline">Retry now</button>
        </div>
      ) : null}

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
        <div data-testid="queue-empty" className="rounded-lg border border-dashed border-zinc-300 p-10 text-center dark:border-zinc-700">
          {filtered ? (
            <>
              <p className="text-lg font-medium">Nothing waiting matches these filters.</p>
              <button type="button" data-testid="queue-empty-clear" onClick={() => changeView({ sort: draft.sort })} className="mt-2 text-sm underline">Clear filters</button>
            </>
          ) : (
            <>
              <p className="text-lg font-medium">Nothing is waiting for you.</p>
              <p className="mt-2 text-sm text-zinc-500">
                Agents send proposals to <code className="font-mono">POST /api/v1/proposals</code> with their key; see
                “Connect an agent” in the README.
              </p>
            </>
          )}
        </div>
      ) : (
        <>
          {canDecide ? (
            <div className="mb-2 flex flex-wrap items-center gap-2 text-sm">
              <label className="flex items-center gap-2 px-4">
                <input
                  type="checkbox"
                  data-testid="queue-select-all"
                  checked={allSelected}
                  onChange={() => setSelectedIds(allSelected ? new Set() : new Set(items.map((item) => item.id)))}
                  className="h-4 w-4"
                />
                Select all
              </label>
              <button type="button" data-testid="queue-approve-selected" disabled={selected.length === 0} onClick={() => setApproving(selected)} className="rounded-md bg-blue-700 px-3 py-1.5 font-medium text-white hover:bg-blue-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:opacity-50">
                Approve {selected.length} selected
              </button>
              <button type="button" data-testid="queue-reject-selected" disabled={selected.length === 0} onClick={() => setRejecting(selected)} className="rounded-md border border-red-700 px-3 py-1.5 font-medium text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:opacity-50 dark:text-red-300 dark:hover:bg-red-950">
                Reject {selected.length} selected…
              </button>
            </div>
          ) : (
            <p data-testid="queue-read-only" className="mb-2 text-sm text-zinc-500">You can read the queue; deciding needs the approver role.</p>
          )}
          <div role="grid" aria-label="Pending proposals" aria-multiselectable={canDecide || undefined} data-testid="queue-list" className="divide-y divide-zinc-200 overflow-hidden rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
            {items.map((item, index) => (
              <QueueRow
                key={item.id}
                item={item}
                focused={index === focusIndex}
                selected={selectedIds.has(item.id)}
                selectable={canDecide}
                now={now}
                onToggle={toggle}
                onFocusRow={(id) => setFocus({ id, index })}
              />
            ))}
          </div>
          {query.hasNextPage ? (
            <button type="button" data-testid="queue-load-more" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()} className="mt-3 w-full rounded-lg border border-zinc-300 py-2 text-sm hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-600 disabled:opacity-60 dark:border-zinc-700 dark:hover:bg-zinc-800">
              {query.isFetchingNextPage ? 'Loading…' : `Load more (${items.length} of ${total} shown)`}
            </button>
          ) : null}
        </>
      )}

      <p className="mt-3 flex flex-wrap items-center gap-x-2 text-xs text-zinc-500">
        <span>j/k move · enter open{canDecide ? ' · a approve · r reject · x select' : ''} ·</span>
        <button type="button" data-testid="shortcuts-help-open" onClick={() => setHelpOpen(true)} className="underline focus-visible:outline-2 focus-visible:outline-blue-600">? keys</button>
      </p>

      <ApproveDialog items={approving} onClose={() => setApproving([])} onConfirm={() => void decide(approving, 'approve')} />
      <RejectDialog items={rejecting} onClose={() => setRejecting([])} onConfirm={(reason) => void decide(rejecting, 'reject', reason)} />
      <ShortcutsHelp open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  );
}
