import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Button } from './button';

describe('Button', () => {
  it('is a plain button unless told to submit, so it never submits a form by accident', () => {
    render(
      <form>
        <Button>Cancel</Button>
        <Button type="submit" variant="primary">
          Save
        </Button>
      </form>,
    );
    expect(screen.getByRole('button', { name: 'Cancel' }).getAttribute('type')).toBe('button');
    expect(screen.getByRole('button', { name: 'Save' }).getAttribute('type')).toBe('submit');
  });

  it('gives its look to a link (asChild) without making it a button, and keeps the caller’s attributes', () => {
    render(
      <Button asChild variant="primary" className="w-full">
        <a href="/history" data-testid="to-history">
          History
        </a>
      </Button>,
    );
    const link = screen.getByRole('link', { name: 'History' });
    expect(link.getAttribute('type')).toBeNull();
    expect(link.getAttribute('data-testid')).toBe('to-history');
    expect(link.className).toContain('bg-blue-700');
    expect(link.className).toContain('w-full');
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('looks disabled and is disabled', () => {
    render(
      <Button variant="destructive" disabled>
        Remove
      </Button>,
    );
    const button = screen.getByRole('button', { name: 'Remove' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(button.className).toContain('disabled:opacity-50');
  });

  it('has one shape per size: a chip is a pill (never also rounded-md) and shows when it is pressed', () => {
    render(
      <Button size="chip" aria-pressed>
        Wrong order
      </Button>,
    );
    const chip = screen.getByRole('button', { name: 'Wrong order' });
    expect(chip.className).toContain('rounded-full');
    expect(chip.className).not.toContain('rounded-md');
    expect(chip.className).toContain('aria-pressed:bg-zinc-200');
    expect(chip.getAttribute('aria-pressed')).toBe('true');
  });
});
