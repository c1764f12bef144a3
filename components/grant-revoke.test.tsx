import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { serveJson as serve } from '@/test/fetch-stub';
import { GrantRevokeButton } from './grant-revoke';

const router = vi.hoisted(() => ({ refresh: vi.fn(), push: vi.fn() }));
vi.mock('next/navigation', () => ({ useRouter: () => router }));

function open() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { mutations: { retry: false } } })}>
      <GrantRevokeButton
        grantId="g_0123456789abcdefghjk"
        covers="hold_stock proposals of acme-support-bot on sku:filter-gray"
      />
    </QueryClientProvider>,
  );
  const trigger = screen.getByTestId('grant-revoke');
  trigger.focus();
  fireEvent.click(trigger);
  return { trigger, dialog: screen.getByRole('dialog', { name: 'Revoke grant g_0123456789abcdefghjk?' }) };
}

/** Radix gives focus back a tick after the dialog unmounts. */
const afterClose = () => act(() => new Promise((resolve) => setTimeout(resolve, 0)));

beforeEach(() => router.refresh.mockReset());
afterEach(() => vi.unstubAllGlobals());

describe('GrantRevokeButton', () => {
  it('asks first, in words of what stops being approved, and Cancel sends nothing and gives focus back', async () => {
    const sent = serve({ status: 200, body: {} });
    const { trigger, dialog } = open();
    expect(dialog.textContent).toContain(
      'From now on, hold_stock proposals of acme-support-bot on sku:filter-gray wait for a person again.',
    );
    fireEvent.click(screen.getByTestId('grant-revoke-cancel'));
    await afterClose();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(trigger);
    expect(sent).toEqual([]);
  });

  it('revokes with the reason typed, closes and reads the list again', async () => {
    const sent = serve({ status: 200, body: { id: 'g_0123456789abcdefghjk', state: 'revoked' } });
    open();
    fireEvent.change(screen.getByRole('textbox', { name: 'Reason (optional)' }), {
      target: { value: 'Restock is over' },
    });
    fireEvent.click(screen.getByTestId('grant-revoke-confirm'));
    await waitFor(() => expect(router.refresh).toHaveBeenCalled());
    expect(sent).toEqual([
      { url: '/api/v1/grants/g_0123456789abcdefghjk/revoke', method: 'POST', body: { reason: 'Restock is over' } },
    ]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('sends no reason when none (or only spaces) was typed', async () => {
    const sent = serve({ status: 200, body: {} });
    open();
    fireEvent.change(screen.getByTestId('grant-revoke-reason'), { target: { value: '  ' } });
    fireEvent.click(screen.getByTestId('grant-revoke-confirm'));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]?.body).toEqual({});
  });

  it('shows a refusal in the dialog; a grant that ended meanwhile also refreshes the list behind it', async () => {
    serve({
      status: 409,
      body: {
        error: { code: 'grant_ended', message: 'This grant no longer covers anything (expired); nothing was changed.' },
      },
    });
    const { dialog } = open();
    fireEvent.click(screen.getByTestId('grant-revoke-confirm'));
    expect((await screen.findByTestId('grant-revoke-error')).textContent).toBe(
      'This grant no longer covers anything (expired); nothing was changed.',
    );
    expect(dialog.isConnected).toBe(true);
    expect(router.refresh).toHaveBeenCalled();
  });

  it('a refusal of the person (403) is shown without refreshing', async () => {
    serve({
      status: 403,
      body: {
        error: { code: 'forbidden_role', message: 'Only the person who granted it or an admin may revoke a grant.' },
      },
    });
    open();
    fireEvent.click(screen.getByTestId('grant-revoke-confirm'));
    expect((await screen.findByTestId('grant-revoke-error')).textContent).toBe(
      'Only the person who granted it or an admin may revoke a grant.',
    );
    expect(router.refresh).not.toHaveBeenCalled();
  });
});
