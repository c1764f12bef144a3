'use client';

import { usePathname, useRouter } from 'next/navigation';
import { useRef, useState, useTransition } from 'react';
import { nextNeedingYou } from '@/lib/client/queue-state';
import {
  countText,
  isMine,
  QUEUE_SCAN_LIMIT,
  type QueueGroup,
  type QueueItem,
  type QueuePage,
  type QueueView,
  queueViewSearch,
} from '@/lib/shared/queue-view';
import { QueueEmpty } from './queue/queue-empty';
import { QueueNotices } from './queue/queue-notices';
import { QueueFilterBar, QueueSelectionBar } from './queue/queue-toolbar';
import { useQueueDecisions } from './queue/use-queue-decisions';
import { useQueueFocus } from './queue/use-queue-focus';
import { useQueueKeys } from './queue/use-queue-keys';
import { useQueuePaging, useQueueQueryKey } from './queue/use-queue-paging';
import { useQueueSelection } from './queue/use-queue-selection';
import { useQueueTitle } from './queue/use-queue-title';
import { ApproveDialog, RejectDialog } from './queue-dialogs';
import { QueuePreview } from './queue-preview';
import { QueueResults } from './queue-results';
import { QueueRow, QueueSkeleton } from './queue-row';
import { QueueTabs } from './queue-tabs';
import { ZoneNote } from './queue-times';
import { ShortcutsHelp } from './shortcuts-help';
import { Button } from './ui/button';

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
 * The state lives in hooks (components/queue/use-queue-*.ts, their rules in
 * lib/client/queue-state.ts); this composes them with the views.
 *
 * `a` approves a clear item at once (low risk, no flags, unchanged since proposed); anything else,
 * and every batch, asks to confirm with what should stop a fast approval in view.
 */
export function QueueList({ tenantId, view, initial, actions, agents, canDecide }: QueueListProps) {
  const router = useRouter();
  const pathname = usePathname();
  const [navigating, startNavigation] = useTransition();
  const queryKey = useQueueQueryKey(tenantId, view);

  const decisions = useQueueDecisions(queryKey, {
    // Focus goes on to the next item that needs the viewer, not onto one on its way out.
    beforeSend: (ids) => {
      if (!focus.focused || !ids.has(focus.focused.id)) return;
      const next = nextNeedingYou(items, focus.focusIndex, (id) => decisions.pending.has(id) || ids.has(id));
      if (next >= 0) focus.moveTo(next);
    },
    afterSend: (ids) => selection.drop(ids),
  });
  const paging = useQueuePaging(queryKey, initial, decisions.sessionEnded);
  const { query, items, counts, countsExact } = paging;
  const sessionEnded = decisions.sessionEnded || paging.sessionEnded;
  const focus = useQueueFocus(items, decisions.dialogOpen);
  const selection = useQueueSelection(items, decisions.pending);
  const [helpOpen, setHelpOpen] = useState(false);
  useQueueTitle(counts['needs-you'], countsExact);

  const actionable = (item: QueueItem | undefined): item is QueueItem =>
    Boolean(item) && canDecide && !sessionEnded && isMine(item!) && !decisions.pending.has(item!.id);

  // Marked once the keyboard shortcuts listen (after hydration): a key pressed earlier does nothing.
  const rootRef = useRef<HTMLDivElement>(null);
  const gridRef = useRef<HTMLDivElement>(null);
  const focused = focus.focused;
  const open = () => {
    if (focused) router.push(`/proposals/${focused.id}`);
    return false;
  };
  useQueueKeys(
    rootRef,
    gridRef,
    { focusIndex: focus.focusIndex, count: items.length },
    {
      move: ({ to }) => focus.moveTo(to),
      open,
      approve: () => (actionable(focused) ? decisions.approveOne(focused) : false),
      reject: () => (actionable(focused) ? decisions.askReject([focused]) : false),
      toggle: () => (actionable(focused) ? selection.toggle(focused.id) : false),
      help: () => setHelpOpen(true),
    },
  );

  // The view being navigated to: a second change before the page arrives builds on the first.
  const [draft, setDraft] = useState(view);
  const changeView = (next: QueueView) => {
    setDraft(next);
    startNavigation(() => router.replace(`${pathname}${queueViewSearch(next)}`, { scroll: false }));
  };

  const filtered = Boolean(view.action || view.agent || view.risk);
  const signInAgain = `/signin?callbackUrl=${encodeURIComponent(`${pathname}${queueViewSearch(view)}`)}`;

  return (
    <div ref={rootRef} data-testid="queue" data-session-ended={sessionEnded ? 'true' : undefined}>
      <div className="mb-3 flex items-end gap-2 border-b border-zinc-200 dark:border-zinc-800">
        <QueueTabs
          view={draft}
          counts={counts}
          exact={countsExact}
          onChange={(group: QueueGroup) => changeView({ ...draft, group })}
        />
        <div className="mb-1.5 ml-auto shrink-0">
          <QueueFilterBar view={draft} actions={actions} agents={agents} onChange={changeView} />
        </div>
      </div>

      <QueueNotices
        sessionEnded={sessionEnded}
        signInAgain={signInAgain}
        error={query.error}
        shown={paging.all.length > 0}
        onRetry={() => void query.refetch()}
      />
      <QueueResults results={decisions.results} onDismiss={decisions.dismissResults} />

      <div
        className={
          'lg:grid lg:grid-cols-[minmax(0,1fr)_22rem] lg:items-start lg:gap-4 xl:grid-cols-[minmax(0,1fr)_26rem]'
        }
      >
        <div className="min-w-0">
          {paging.newCount > 0 ? (
            <Button
              variant="notice"
              size="lg"
              data-testid="queue-new-bar"
              onClick={paging.showNew}
              className="mb-2 w-full text-sm"
            >
              {paging.newCount} new — show
            </Button>
          ) : null}

          {navigating || (query.isPending && paging.all.length === 0) ? (
            <QueueSkeleton />
          ) : items.length === 0 ? (
            <QueueEmpty
              view={view}
              filtered={filtered}
              canDecide={canDecide}
              waiting={counts.waiting > 0 ? countText(counts.waiting, countsExact) : null}
              further={
                query.hasNextPage
                  ? {
                      looked: (query.data?.pages.length ?? 1) * QUEUE_SCAN_LIMIT,
                      busy: query.isFetchingNextPage,
                      onLook: () => void query.fetchNextPage(),
                    }
                  : undefined
              }
              onClear={() => changeView({ group: draft.group, sort: draft.sort })}
              onGroup={(group) => changeView({ ...draft, group })}
            />
          ) : (
            <>
              {canDecide ? null : (
                <p data-testid="queue-read-only" className="mb-2 text-sm text-zinc-600 dark:text-zinc-400">
                  You can read the queue; deciding needs the approver role.
                </p>
              )}
              <div
                className={
                  'overflow-hidden rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900'
                }
              >
                {canDecide ? (
                  <QueueSelectionBar
                    selected={selection.selected.length}
                    allSelected={selection.allSelected}
                    disabled={sessionEnded || selection.selectable.length === 0}
                    locked={sessionEnded}
                    onToggleAll={selection.toggleAll}
                    onApprove={() => decisions.askApprove(selection.selected)}
                    onReject={() => decisions.askReject(selection.selected)}
                  />
                ) : null}
                <div
                  ref={gridRef}
                  role="grid"
                  aria-label={`Pending proposals: ${
                    view.group === 'needs-you' ? 'needing you' : view.group === 'waiting' ? 'waiting on others' : 'all'
                  }`}
                  aria-multiselectable={canDecide || undefined}
                  aria-disabled={sessionEnded || undefined}
                  data-testid="queue-list"
                  className="divide-y divide-zinc-200 dark:divide-zinc-800"
                >
                  {items.map((item, index) => (
                    <QueueRow
                      key={item.id}
                      item={item}
                      focused={index === focus.focusIndex}
                      selected={selection.selectedIds.has(item.id)}
                      canDecide={canDecide}
                      disabled={sessionEnded}
                      pending={decisions.pending.get(item.id)}
                      now={paging.now}
                      onToggle={selection.toggle}
                      onFocusRow={(id) => focus.setFocus({ id, index })}
                    />
                  ))}
                </div>
              </div>
              {query.hasNextPage ? (
                <Button
                  data-testid="queue-load-more"
                  disabled={query.isFetchingNextPage || sessionEnded}
                  onClick={() => void query.fetchNextPage()}
                  className="mt-3 w-full justify-center"
                >
                  {query.isFetchingNextPage
                    ? 'Loading…'
                    : `Load more (${items.length} of ${countText(paging.total, countsExact)} shown)`}
                </Button>
              ) : null}
            </>
          )}
        </div>
        <div className="hidden lg:sticky lg:top-4 lg:block">
          <QueuePreview
            item={focused}
            now={paging.now}
            disabled={!actionable(focused)}
            onApprove={(item) => decisions.askApprove([item])}
            onReject={(item) => decisions.askReject([item])}
          />
        </div>
      </div>

      <p
        data-testid="queue-keys"
        className="mt-3 flex flex-wrap items-center gap-x-2 text-xs text-zinc-600 dark:text-zinc-400"
      >
        <span>j/k or ↑/↓ move · enter open{canDecide ? ' · a approve · r reject · x select' : ''} ·</span>
        <Button variant="link" data-testid="shortcuts-help-open" onClick={() => setHelpOpen(true)}>
          ? keys
        </Button>
        <span aria-hidden="true">·</span>
        <ZoneNote />
      </p>
      {canDecide ? (
        <p data-testid="queue-approve-rule" className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
          <kbd className="font-mono">a</kbd> approves at once only a low-severity item whose facts were just re-checked
          and found unchanged; anything flagged, riskier, changed or not yet re-checked opens a confirmation first, and
          batches always do.
        </p>
      ) : null}

      <ApproveDialog
        items={decisions.approving}
        onClose={decisions.closeDialogs}
        onConfirm={() => void decisions.decide(decisions.approving, 'approve')}
      />
      <RejectDialog
        items={decisions.rejecting}
        onClose={decisions.closeDialogs}
        onConfirm={(reason) => void decisions.decide(decisions.rejecting, 'reject', reason)}
      />
      <ShortcutsHelp open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  );
}
