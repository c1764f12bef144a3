'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { focusIndexOf, type QueueFocus } from '@/lib/client/queue-state';
import type { QueueItem } from '@/lib/shared/queue-view';

const rowLink = (id: string) =>
  document.querySelector<HTMLElement>(
    `[data-testid="queue-item"][data-proposal-id="${CSS.escape(id)}"] [data-testid="queue-item-link"]`,
  );

/**
 * The focused row, remembered by id (when it leaves, focus stays at the same position). `moveTo`
 * renders the row as focused, then puts the browser's focus on its link, unless `holding` (a dialog
 * is open: closing it first gives focus back where it was, then the move happens).
 */
export function useQueueFocus(items: QueueItem[], holding: boolean) {
  const [focus, setFocus] = useState<QueueFocus>({ id: null, index: 0 });
  const focusIndex = focusIndexOf(items, focus);
  const focused = focusIndex >= 0 ? items[focusIndex] : undefined;

  const focusTarget = useRef<string | null>(null);
  useEffect(() => {
    const id = focusTarget.current;
    if (!id || holding) return;
    const link = rowLink(id);
    if (!link) return;
    focusTarget.current = null;
    link.focus({ preventScroll: true });
    link.closest('[data-testid="queue-item"]')?.scrollIntoView({ block: 'nearest' });
  });

  const moveTo = useCallback(
    (index: number) => {
      const item = items[index];
      if (!item) return;
      focusTarget.current = item.id;
      setFocus({ id: item.id, index });
    },
    [items],
  );

  return { focusIndex, focused, moveTo, setFocus };
}
