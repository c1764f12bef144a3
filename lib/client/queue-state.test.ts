import { describe, expect, it } from 'vitest';
import type { QueueItem } from '@/lib/shared/queue-view';
import {
  focusIndexOf,
  mergePages,
  nextNeedingYou,
  queueKeyAction,
  showNewUntil,
  shownItems,
  toggled,
  without,
} from './queue-state';

const item = (id: string, mine = true, createdAt = '2026-01-01T10:00:00.000Z') =>
  ({ id, createdAt, mine: mine ? { kind: 'decide' } : { kind: 'approved' } }) as unknown as QueueItem;

describe('the queue list', () => {
  it('merges pages without showing an item twice, in arrival order', () => {
    expect(mergePages([{ items: [item('a'), item('b')] }, { items: [item('b'), item('c')] }]).map((i) => i.id)).toEqual(
      ['a', 'b', 'c'],
    );
    expect(mergePages([])).toEqual([]);
  });

  it('holds items created after the seen instant behind the "new" bar until asked for', () => {
    const all = [item('old', true, '2026-01-01T10:00:00.000Z'), item('new', true, '2026-01-01T10:00:05.000Z')];
    const seen = Date.parse('2026-01-01T10:00:01.000Z');
    expect(shownItems(all, seen).map((i) => i.id)).toEqual(['old']);
    const until = showNewUntil(seen, '2026-01-01T10:00:03.000Z', all);
    expect(until).toBe(Date.parse('2026-01-01T10:00:05.000Z'));
    expect(shownItems(all, until).map((i) => i.id)).toEqual(['old', 'new']);
  });
});

describe('focus', () => {
  const items = [item('a'), item('b'), item('c')];

  it('follows the focused item by id and keeps the position when it leaves', () => {
    expect(focusIndexOf(items, { id: 'c', index: 0 })).toBe(2);
    expect(focusIndexOf(items, { id: 'gone', index: 1 })).toBe(1);
    expect(focusIndexOf(items, { id: 'gone', index: 7 })).toBe(2);
    expect(focusIndexOf([], { id: 'a', index: 0 })).toBe(-1);
  });

  it('moves on to the next item that needs the viewer, wrapping, skipping those on their way out', () => {
    const mixed = [item('a'), item('b', false), item('c'), item('d')];
    expect(nextNeedingYou(mixed, 0, () => false)).toBe(2);
    expect(nextNeedingYou(mixed, 0, (id) => id === 'c')).toBe(3);
    expect(nextNeedingYou(mixed, 3, () => false)).toBe(0);
    expect(nextNeedingYou(mixed, 0, (id) => id !== 'a')).toBe(-1);
  });
});

describe('selection', () => {
  it('ticks and unticks one id without changing the set it was given', () => {
    const start = new Set(['a']);
    expect([...toggled(start, 'b')]).toEqual(['a', 'b']);
    expect([...toggled(start, 'a')]).toEqual([]);
    expect([...start]).toEqual(['a']);
    expect([...without(new Set(['a', 'b', 'c']), new Set(['b']))]).toEqual(['a', 'c']);
  });
});

describe('keys', () => {
  const at = (focusIndex: number, inGrid = true, onControl = false) => ({ inGrid, onControl, focusIndex, count: 3 });

  it('j/k and the arrows move within the list, stopping at its ends', () => {
    expect(queueKeyAction('j', at(0))).toEqual({ kind: 'move', to: 1 });
    expect(queueKeyAction('j', at(2))).toEqual({ kind: 'move', to: 2 });
    expect(queueKeyAction('k', at(0))).toEqual({ kind: 'move', to: 0 });
    expect(queueKeyAction('ArrowUp', at(2))).toEqual({ kind: 'move', to: 1 });
    expect(queueKeyAction('j', at(-1))).toEqual({ kind: 'move', to: 0 });
    expect(queueKeyAction('End', at(0))).toEqual({ kind: 'move', to: 2 });
    expect(queueKeyAction('Home', at(2))).toEqual({ kind: 'move', to: 0 });
    expect(queueKeyAction('j', { inGrid: true, onControl: false, focusIndex: -1, count: 0 })).toBeNull();
  });

  it('arrows, Home, End and Space belong to the list only when focus is in it', () => {
    for (const key of ['ArrowDown', 'ArrowUp', 'Home', 'End', ' '])
      expect(queueKeyAction(key, at(1, false)), key).toBeNull();
    expect(queueKeyAction('j', at(1, false))).toEqual({ kind: 'move', to: 2 });
    expect(queueKeyAction(' ', at(1))).toEqual({ kind: 'toggle' });
  });

  it('Enter opens unless a link or button has focus; the letters name their actions', () => {
    expect(queueKeyAction('Enter', at(1))).toEqual({ kind: 'open' });
    expect(queueKeyAction('Enter', at(1, true, true))).toBeNull();
    expect(queueKeyAction('o', at(1, true, true))).toEqual({ kind: 'open' });
    expect(queueKeyAction('a', at(1))).toEqual({ kind: 'approve' });
    expect(queueKeyAction('r', at(1))).toEqual({ kind: 'reject' });
    expect(queueKeyAction('x', at(1, false))).toEqual({ kind: 'toggle' });
    expect(queueKeyAction('?', at(1))).toEqual({ kind: 'help' });
    expect(queueKeyAction('z', at(1))).toBeNull();
  });
});
