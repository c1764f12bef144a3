'use client';

import type { RefObject } from 'react';
import { type QueueKeyAction, queueKeyAction } from '@/lib/client/queue-state';
import { usePageKeys } from '../use-page-keys';

/** What the list does for each key action; `false` leaves the key to the browser (nothing to act on). */
export type QueueKeyHandlers = {
  [Kind in QueueKeyAction['kind']]: (action: Extract<QueueKeyAction, { kind: Kind }>) => boolean | void;
};

/**
 * The queue's keys (j/k and arrows move, Home/End, Enter/o open, a approve, r reject, x/Space select,
 * ? help), decided by `queueKeyAction`; arrows, Home, End and Space belong to the list only when
 * focus is in it (or nowhere). `root` gets `data-keys-ready` once they listen.
 */
export function useQueueKeys(
  root: RefObject<HTMLElement | null>,
  grid: RefObject<HTMLElement | null>,
  state: { focusIndex: number; count: number },
  handlers: QueueKeyHandlers,
) {
  usePageKeys((event) => {
    const target = event.target instanceof HTMLElement ? event.target : null;
    const inGrid = !target || target === document.body || Boolean(grid.current?.contains(target));
    const action = queueKeyAction(event.key, { inGrid, onControl: Boolean(target?.closest('a, button')), ...state });
    if (!action) return;
    const handle = handlers[action.kind] as (action: QueueKeyAction) => boolean | void;
    if (handle(action) !== false) event.preventDefault();
  }, root);
}
