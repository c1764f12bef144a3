'use client';

import { useCallback, useMemo, useState } from 'react';
import { toggled, without } from '@/lib/client/queue-state';
import { isMine, type QueueItem } from '@/lib/shared/queue-view';

/** Ticked items for a batch: only the viewer's own, never one whose decision is on its way. */
export function useQueueSelection(items: QueueItem[], pending: ReadonlyMap<string, unknown>) {
  const [selectedIds, setSelectedIds] = useState<Set<string>>(() => new Set());
  const selectable = useMemo(() => items.filter((item) => isMine(item) && !pending.has(item.id)), [items, pending]);
  const selected = useMemo(() => selectable.filter((item) => selectedIds.has(item.id)), [selectable, selectedIds]);
  const allSelected = selectable.length > 0 && selected.length === selectable.length;
  return {
    selectedIds,
    selected,
    selectable,
    allSelected,
    toggle: useCallback((id: string) => setSelectedIds((current) => toggled(current, id)), []),
    toggleAll: () => setSelectedIds(allSelected ? new Set() : new Set(selectable.map((item) => item.id))),
    drop: useCallback((ids: ReadonlySet<string>) => setSelectedIds((current) => without(current, ids)), []),
  };
}
