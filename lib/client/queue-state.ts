import { isMine, type QueueItem } from '@/lib/shared/queue-view';

/**
 * The queue's client-side state as pure functions (the React hooks in components/queue/ hold the
 * state; these decide what it becomes), so each rule is tested without a browser.
 */

/** Pages as they arrived, as one list: an item seen on an earlier page is not shown twice. */
export function mergePages<Item extends { id: string }>(pages: readonly { items: readonly Item[] }[]): Item[] {
  const seen = new Set<string>();
  const out: Item[] = [];
  for (const page of pages) {
    for (const item of page.items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      out.push(item);
    }
  }
  return out;
}

/** What the list shows: items created up to `seenUntil` (later ones wait behind the "N new" bar). */
export function shownItems<Item extends { createdAt: string }>(all: readonly Item[], seenUntil: number): Item[] {
  return all.filter((item) => Date.parse(item.createdAt) <= seenUntil);
}

/** The instant up to which the list is shown after "N new — show": the latest of everything known. */
export function showNewUntil(seenUntil: number, asOf: string, all: readonly { createdAt: string }[]): number {
  return Math.max(seenUntil, Date.parse(asOf), ...all.map((item) => Date.parse(item.createdAt)));
}

export type QueueFocus = { id: string | null; index: number };

/** The focused row: remembered by id; when that item leaves, focus stays at the same position. */
export function focusIndexOf(items: readonly { id: string }[], focus: QueueFocus): number {
  if (items.length === 0) return -1;
  const found = focus.id ? items.findIndex((item) => item.id === focus.id) : -1;
  return found >= 0 ? found : Math.min(focus.index, items.length - 1);
}

/** The next item after `from` that is still the viewer's to decide (wrapping around), skipping `skip`. */
export function nextNeedingYou(items: readonly QueueItem[], from: number, skip: (id: string) => boolean): number {
  for (let step = 1; step < items.length; step++) {
    const index = (from + step) % items.length;
    const item = items[index]!;
    if (isMine(item) && !skip(item.id)) return index;
  }
  return -1;
}

/** `ids` with `id` ticked or unticked. */
export function toggled(ids: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(ids);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  return next;
}

/** `ids` without those in `gone`. */
export const without = (ids: ReadonlySet<string>, gone: ReadonlySet<string>): Set<string> =>
  new Set([...ids].filter((id) => !gone.has(id)));

/** What a key does in the queue (or nothing). Arrow keys, Home, End and Space act only when focus is in the list. */
export type QueueKeyAction =
  | { kind: 'move'; to: number }
  | { kind: 'open' }
  | { kind: 'approve' }
  | { kind: 'reject' }
  | { kind: 'toggle' }
  | { kind: 'help' };

export function queueKeyAction(
  key: string,
  context: { inGrid: boolean; onControl: boolean; focusIndex: number; count: number },
): QueueKeyAction | null {
  const { inGrid, onControl, focusIndex, count } = context;
  if (count === 0 && ['j', 'k', 'ArrowDown', 'ArrowUp', 'Home', 'End'].includes(key)) return null;
  switch (key) {
    case 'j':
    case 'k':
    case 'ArrowDown':
    case 'ArrowUp': {
      if (key.startsWith('Arrow') && !inGrid) return null;
      const down = key === 'j' || key === 'ArrowDown';
      return {
        kind: 'move',
        to: focusIndex < 0 ? 0 : down ? Math.min(focusIndex + 1, count - 1) : Math.max(focusIndex - 1, 0),
      };
    }
    case 'Home':
    case 'End':
      return inGrid ? { kind: 'move', to: key === 'Home' ? 0 : count - 1 } : null;
    case 'Enter':
      // A focused link or button does its own thing on Enter.
      return onControl ? null : { kind: 'open' };
    case 'o':
      return { kind: 'open' };
    case 'a':
      return { kind: 'approve' };
    case 'r':
      return { kind: 'reject' };
    case 'x':
      return { kind: 'toggle' };
    case ' ':
      return inGrid ? { kind: 'toggle' } : null;
    case '?':
      return { kind: 'help' };
    default:
      return null;
  }
}
