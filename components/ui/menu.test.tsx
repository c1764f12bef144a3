import { fireEvent, render, screen } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Menu, MenuContent, MenuSubmitItem, MenuTrigger } from './menu';

beforeAll(() => {
  // Radix measures the menu's trigger; jsdom has no ResizeObserver.
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      unobserve() {}
      disconnect() {}
    },
  );
});

describe('MenuSubmitItem', () => {
  it('is a menu item that is its form’s submit button (so it works without JavaScript), and choosing it keeps the menu open', () => {
    const submitted = vi.fn((event: { preventDefault: () => void }) => event.preventDefault());
    render(
      <Menu defaultOpen>
        <MenuTrigger>Account</MenuTrigger>
        <MenuContent>
          <form action="/signout" method="post" onSubmit={submitted}>
            <MenuSubmitItem data-testid="sign-out">Sign out</MenuSubmitItem>
          </form>
        </MenuContent>
      </Menu>,
    );
    const item = screen.getByRole('menuitem', { name: 'Sign out' });
    expect(item.tagName).toBe('BUTTON');
    expect(item.getAttribute('type')).toBe('submit');
    expect(item.closest('form')?.getAttribute('action')).toBe('/signout');
    fireEvent.click(item);
    expect(submitted).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('menu')).toBeTruthy();
  });
});
