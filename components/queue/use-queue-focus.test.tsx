import { act, render, screen } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import type { QueueItem } from '@/lib/shared/queue-view';
import { useQueueFocus } from './use-queue-focus';

const item = (id: string) => ({ id, mine: { kind: 'decide' } }) as unknown as QueueItem;

type Handle = ReturnType<typeof useQueueFocus>;

/** Rows shaped as the queue renders them (a row with its link), and the hook's answer handed out. */
function Rows({ items, holding, onHook }: { items: QueueItem[]; holding: boolean; onHook: (hook: Handle) => void }) {
  const hook = useQueueFocus(items, holding);
  onHook(hook);
  return (
    <ul>
      {items.map((i, index) => (
        <li key={i.id} data-testid="queue-item" data-proposal-id={i.id} data-focused={index === hook.focusIndex}>
          <a href={`#${i.id}`} data-testid="queue-item-link">
            {i.id}
          </a>
        </li>
      ))}
    </ul>
  );
}

describe('useQueueFocus', () => {
  beforeAll(() => {
    // jsdom lays nothing out, so it has no scrolling; the hook scrolls the focused row into view.
    Element.prototype.scrollIntoView = () => {};
  });

  it('moves the row focus and the browser focus to the row’s link', () => {
    let hook!: Handle;
    render(<Rows items={[item('a'), item('b'), item('c')]} holding={false} onHook={(h) => (hook = h)} />);
    expect(hook.focusIndex).toBe(0);
    act(() => hook.moveTo(2));
    expect(hook.focused?.id).toBe('c');
    expect(document.activeElement).toBe(screen.getByText('c'));
  });

  it('waits while a dialog holds focus, then moves once it is let go', () => {
    let hook!: Handle;
    const items = [item('a'), item('b')];
    const { rerender } = render(<Rows items={items} holding onHook={(h) => (hook = h)} />);
    act(() => hook.moveTo(1));
    expect(hook.focusIndex).toBe(1);
    expect(document.activeElement).not.toBe(screen.getByText('b'));
    rerender(<Rows items={items} holding={false} onHook={(h) => (hook = h)} />);
    expect(document.activeElement).toBe(screen.getByText('b'));
  });

  it('follows the focused item by id when the list changes, and keeps the position it was moved to when it leaves', () => {
    let hook!: Handle;
    const { rerender } = render(
      <Rows items={[item('a'), item('b'), item('c')]} holding={false} onHook={(h) => (hook = h)} />,
    );
    act(() => hook.moveTo(1));
    rerender(
      <Rows items={[item('new'), item('a'), item('b'), item('c')]} holding={false} onHook={(h) => (hook = h)} />,
    );
    expect(hook.focused?.id).toBe('b');
    // b was moved to at position 1: with b gone, focus is on whatever is at position 1 now.
    rerender(<Rows items={[item('new'), item('a'), item('c')]} holding={false} onHook={(h) => (hook = h)} />);
    expect(hook.focused?.id).toBe('a');
  });
});
