'use client';

import { useState } from 'react';
import type { QueueView } from '@/lib/shared/queue-view';
import { QueueFilters } from '../queue-filters';
import { Badge } from '../ui/badge';
import { Button } from '../ui/button';
import { Sheet, SheetContent, SheetTrigger } from '../ui/sheet';

type FilterProps = { view: QueueView; actions: string[]; agents: string[]; onChange: (view: QueueView) => void };

/**
 * Filters and sort: inline from `md` up; on a phone behind one "Filters" button (with how many are
 * set) that opens them in a sheet, so the list starts near the top of the screen.
 */
export function QueueFilterBar(props: FilterProps) {
  const [open, setOpen] = useState(false);
  const set = [props.view.action, props.view.agent, props.view.risk].filter(Boolean).length;
  return (
    <>
      <div className="hidden md:block">
        <QueueFilters {...props} />
      </div>
      <Sheet open={open} onOpenChange={setOpen}>
        <SheetTrigger asChild>
          <Button variant="secondary" data-testid="queue-filters-open" className="shrink-0 md:hidden">
            Filters{set > 0 ? <Badge tone="info">{set}</Badge> : null}
          </Button>
        </SheetTrigger>
        <SheetContent
          side="bottom"
          title="Filters and sort"
          data-testid="queue-filters-sheet"
          aria-describedby={undefined}
        >
          <QueueFilters {...props} stacked />
          <Button variant="primary" onClick={() => setOpen(false)} className="self-end">
            Done
          </Button>
        </SheetContent>
      </Sheet>
    </>
  );
}

type SelectionProps = {
  /** Ticked items for a batch (the buttons appear only when there are some). */
  selected: number;
  allSelected: boolean;
  /** Nothing to tick, or the session ended. */
  disabled: boolean;
  /** The session ended: nothing can be decided. */
  locked: boolean;
  onToggleAll: () => void;
  onApprove: () => void;
  onReject: () => void;
};

/** The list's header: Select all, and the batch buttons only while something is selected. */
export function QueueSelectionBar({
  selected,
  allSelected,
  disabled,
  locked,
  onToggleAll,
  onApprove,
  onReject,
}: SelectionProps) {
  return (
    <div
      className={
        'flex min-h-9 flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-1 text-sm dark:border-zinc-800'
      }
    >
      <label className="flex items-center gap-2">
        <span className="flex h-6 w-6 items-center justify-center">
          <input
            type="checkbox"
            data-testid="queue-select-all"
            checked={allSelected}
            disabled={disabled}
            onChange={onToggleAll}
            className="h-5 w-5 accent-blue-700"
          />
        </span>
        {selected > 0 ? `${selected} selected` : 'Select all'}
      </label>
      {selected > 0 ? (
        <span className="ml-auto flex gap-2">
          <Button
            variant="primary"
            size="sm"
            data-testid="queue-approve-selected"
            disabled={locked}
            onClick={onApprove}
          >
            Approve {selected} selected
          </Button>
          <Button variant="danger" size="sm" data-testid="queue-reject-selected" disabled={locked} onClick={onReject}>
            Reject {selected} selected…
          </Button>
        </span>
      ) : null}
    </div>
  );
}
