import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { QueueItem } from '@/lib/shared/queue-view';
import { useQueueSelection } from './use-queue-selection';

const item = (id: string, mine = true) =>
  ({ id, mine: mine ? { kind: 'decide' } : { kind: 'approved' } }) as unknown as QueueItem;
const ids = (items: readonly { id: string }[]) => items.map((i) => i.id);

describe('useQueueSelection', () => {
  const items = [item('a'), item('b', false), item('c'), item('d')];

  it('offers only the viewer’s own items, and none whose decision is on its way', () => {
    const { result } = renderHook(() => useQueueSelection(items, new Map([['d', 'approve']])));
    expect(ids(result.current.selectable)).toEqual(['a', 'c']);
    expect(result.current.allSelected).toBe(false);
  });

  it('ticks one, ticks all of the selectable, and unticks all when all are ticked', () => {
    const { result } = renderHook(() => useQueueSelection(items, new Map()));
    act(() => result.current.toggle('c'));
    expect(ids(result.current.selected)).toEqual(['c']);
    act(() => result.current.toggleAll());
    expect(ids(result.current.selected)).toEqual(['a', 'c', 'd']);
    expect(result.current.allSelected).toBe(true);
    act(() => result.current.toggleAll());
    expect(result.current.selected).toEqual([]);
  });

  it('drops decided items from the selection, and forgets a tick once its item is on its way', () => {
    const { result, rerender } = renderHook(
      ({ pending }: { pending: ReadonlyMap<string, unknown> }) => useQueueSelection(items, pending),
      { initialProps: { pending: new Map<string, unknown>() } },
    );
    act(() => result.current.toggleAll());
    act(() => result.current.drop(new Set(['a'])));
    expect(ids(result.current.selected)).toEqual(['c', 'd']);
    rerender({ pending: new Map([['c', 'reject']]) });
    expect(ids(result.current.selected)).toEqual(['d']);
  });
});
