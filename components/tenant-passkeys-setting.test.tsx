import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TenantPasskeys } from '@/lib/passkeys/tenant-setting';
import { serveJson as serve } from '@/test/fetch-stub';
import { TenantPasskeysSetting } from './tenant-passkeys-setting';

const router = vi.hoisted(() => ({ refresh: vi.fn(), push: vi.fn() }));
vi.mock('next/navigation', () => ({ useRouter: () => router }));

const OFF: TenantPasskeys = { required: false, members: 4, membersWithPasskey: 1, youHaveOne: true };

function show(setting: Partial<TenantPasskeys> = {}) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { mutations: { retry: false } } })}>
      <TenantPasskeysSetting tenantName="Acme" setting={{ ...OFF, ...setting }} />
    </QueryClientProvider>,
  );
  return screen.getByRole('checkbox', { name: 'Every approval must be signed with a passkey' });
}

/** Radix gives focus back a tick after the dialog unmounts. */
const afterClose = () => act(() => new Promise((resolve) => setTimeout(resolve, 0)));

beforeEach(() => router.refresh.mockReset());
afterEach(() => vi.unstubAllGlobals());

describe('TenantPasskeysSetting', () => {
  it('shows the setting, who has a passkey and that turning it on ends the standing grants', () => {
    const box = show();
    expect(screen.getByRole('heading', { name: 'Passkeys in Acme' })).toBeTruthy();
    expect((box as HTMLInputElement).checked).toBe(false);
    expect(screen.getByTestId('tenant-passkeys-count').textContent).toBe('1 of 4 members has a passkey.');
    expect(box.getAttribute('aria-describedby')).toBe('tenant-passkeys-about');
    expect(document.getElementById('tenant-passkeys-about')?.textContent).toContain(
      'Turning it on ends every standing grant of Acme',
    );
    expect(screen.queryByTestId('tenant-passkeys-yours')).toBeNull();
  });

  it('shows it on, and counts in the plural', () => {
    const box = show({ required: true, members: 1, membersWithPasskey: 0 });
    expect((box as HTMLInputElement).checked).toBe(true);
    expect(screen.getByTestId('tenant-passkeys-count').textContent).toBe('0 of 1 member have a passkey.');
  });

  it('asks before turning it on; Cancel sends nothing and leaves it off', async () => {
    const sent = serve({ status: 200, body: { requirePasskeys: true, changed: true } });
    const box = show();
    box.focus();
    fireEvent.click(box);
    const dialog = screen.getByRole('dialog', { name: 'Require a passkey on every approval in Acme?' });
    expect(dialog.textContent).toContain(
      'Every standing grant of Acme ends now. 1 of 4 members has a passkey; the others cannot approve until they ' +
        'add one.',
    );
    expect((box as HTMLInputElement).checked).toBe(false);
    fireEvent.click(screen.getByTestId('tenant-passkeys-cancel'));
    await afterClose();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(box);
    expect(sent).toEqual([]);
    expect((box as HTMLInputElement).checked).toBe(false);
  });

  it('turns it on once confirmed, shows it on and reads the page again', async () => {
    const sent = serve({ status: 200, body: { requirePasskeys: true, changed: true } });
    const box = show();
    fireEvent.click(box);
    fireEvent.click(screen.getByTestId('tenant-passkeys-turn-on'));
    await waitFor(() => expect(router.refresh).toHaveBeenCalled());
    expect(sent).toEqual([{ url: '/api/v1/admin/passkeys/settings', method: 'PUT', body: { requirePasskeys: true } }]);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect((box as HTMLInputElement).checked).toBe(true);
  });

  it('turns it off without asking', async () => {
    const sent = serve({ status: 200, body: { requirePasskeys: false, changed: true } });
    const box = show({ required: true });
    fireEvent.click(box);
    await waitFor(() => expect(router.refresh).toHaveBeenCalled());
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(sent).toEqual([{ url: '/api/v1/admin/passkeys/settings', method: 'PUT', body: { requirePasskeys: false } }]);
    expect((box as HTMLInputElement).checked).toBe(false);
  });

  it('warns an admin without a passkey, on the page and in the confirmation, and still lets them turn it on', async () => {
    const sent = serve({ status: 200, body: { requirePasskeys: true, changed: true } });
    show({ youHaveOne: false });
    expect(screen.getByTestId('tenant-passkeys-yours').textContent).toBe(
      'You have no passkey yet: while this is on, you cannot approve in Acme until you add one above.',
    );
    fireEvent.click(screen.getByRole('checkbox'));
    expect(screen.getByTestId('tenant-passkeys-confirm-yours').textContent).toContain('you cannot approve in Acme');
    fireEvent.click(screen.getByTestId('tenant-passkeys-turn-on'));
    await waitFor(() => expect(sent).toHaveLength(1));
  });

  it('shows a refusal in the dialog, leaves it off and does not refresh', async () => {
    serve({ status: 403, body: { error: { code: 'forbidden', message: 'You are not an admin of this tenant.' } } });
    const box = show();
    fireEvent.click(box);
    fireEvent.click(screen.getByTestId('tenant-passkeys-turn-on'));
    expect((await screen.findByTestId('tenant-passkeys-confirm-error')).textContent).toBe(
      'You are not an admin of this tenant.',
    );
    expect(screen.getByRole('dialog')).toBeTruthy();
    expect(router.refresh).not.toHaveBeenCalled();
    expect((box as HTMLInputElement).checked).toBe(false);
  });

  it('shows a refusal to turn it off beside the setting, left on', async () => {
    serve({ status: 500, body: null });
    const box = show({ required: true });
    fireEvent.click(box);
    expect((await screen.findByTestId('tenant-passkeys-error')).textContent).toBe(
      'The setting was not saved (HTTP 500).',
    );
    expect((box as HTMLInputElement).checked).toBe(true);
    expect(router.refresh).not.toHaveBeenCalled();
  });
});
