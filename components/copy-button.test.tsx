import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CopyButton } from './copy-button';
import { Hash } from './hash';

afterEach(() => vi.unstubAllGlobals());

function clipboard() {
  const writeText = vi.fn<(text: string) => Promise<void>>(() => Promise.resolve());
  vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
  return writeText;
}

describe('CopyButton', () => {
  it('copies the whole value, then says so (on the button and to screen readers)', async () => {
    const writeText = clipboard();
    render(<CopyButton value="eyJhbGciOiJFZERTQSJ9.e30.sig" label="Copy the signed command" testId="jws-copy" />);
    const button = screen.getByRole('button', { name: 'Copy the signed command' });
    expect(button.getAttribute('type')).toBe('button');
    expect(button.textContent).toBe('copy');
    await act(async () => fireEvent.click(button));
    expect(writeText).toHaveBeenCalledWith('eyJhbGciOiJFZERTQSJ9.e30.sig');
    expect(screen.getByTestId('jws-copy').textContent).toBe('copied');
    expect(screen.getByRole('status').textContent).toBe('Copied');
  });

  it('says nothing was copied when the clipboard refuses', async () => {
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText: () => Promise.reject(new Error('denied')) } });
    render(<CopyButton value="x" label="Copy" testId="c" />);
    await act(async () => fireEvent.click(screen.getByTestId('c')));
    expect(screen.getByTestId('c').textContent).toBe('copy');
  });
});

describe('Hash', () => {
  it('shows the hash short, keeps it whole for hover and copying', async () => {
    const writeText = clipboard();
    const value = `sha256:${'ab12'.repeat(16)}`;
    render(<Hash value={value} />);
    expect(screen.getByTestId('payload-hash').textContent).toBe('sha256:ab12ab12…ab12');
    expect(screen.getByTestId('payload-hash').getAttribute('title')).toBe(value);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Copy the full payload hash' })));
    expect(writeText).toHaveBeenCalledWith(value);
  });
});
