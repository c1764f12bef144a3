import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GrantOffer } from '@/lib/dashboard/grant-offer';
import { DecisionPanel } from './decision-panel';
import { GrantOutcomeNote } from './grant-outcome';

const router = vi.hoisted(() => ({ refresh: vi.fn(), push: vi.fn() }));
vi.mock('next/navigation', () => ({ useRouter: () => router, usePathname: () => '/' }));

const HASH = `sha256:${'c0ffee'.repeat(10)}abcd`;
const HOLD: GrantOffer = {
  action: 'hold_stock',
  agentName: 'acme-support-bot',
  rule: 'holds-one-approver',
  resourceKey: 'sku:filter-gray',
  currency: null,
};
const REFUND: GrantOffer = {
  action: 'issue_refund',
  agentName: 'acme-support-bot',
  rule: 'refunds-small',
  resourceKey: 'order:ord_1842',
  currency: 'EUR',
};

type Sent = { url: string; body: unknown };

const grantView = (proposalId: string) => ({
  id: 'g_0123456789abcdefghjk',
  proposalId,
  grantedBy: { id: 'usr_alice', name: 'Alice' },
  maxCount: 5,
  expiresAt: '2026-12-02T21:00:00.000Z',
  state: 'active',
});

/** The server: the decision is recorded; the grant answers `grant` (a status and body). */
function serve(grant: { status: number; body: unknown }): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      sent.push({ url, body: JSON.parse(String(init.body)) });
      const answer = url.endsWith('/decisions')
        ? {
            status: 200,
            body: { id: 'prp_x', status: 'approved', routing: { approvals: 1 }, decisions: [{ decision: 'approve' }] },
          }
        : grant;
      return { ok: answer.status < 300, status: answer.status, json: async () => answer.body } as Response;
    }),
  );
  return sent;
}

/** The panel and the note beside it, as the proposal page's DECISION section holds them. */
function renderPanel(proposalId: string, grantOffer?: GrantOffer) {
  const client = new QueryClient({ defaultOptions: { mutations: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <DecisionPanel
        proposalId={proposalId}
        payloadHash={HASH}
        approveLabel="Approve hold of 1 × filter-gray"
        summary="Hold 1 × filter-gray"
        canApprove
        nextId={null}
        flagKinds={[]}
        grantOffer={grantOffer}
      />
      <GrantOutcomeNote proposalId={proposalId} />
    </QueryClientProvider>,
  );
  fireEvent.click(screen.getByTestId('approve'));
  return screen.getByRole('group', { name: 'Confirm approval' });
}

beforeEach(() => {
  router.refresh.mockReset();
  router.push.mockReset();
});
afterEach(() => vi.unstubAllGlobals());

describe('the approve confirmation’s standing grant', () => {
  it('is not offered where no grant could be made (the page passes no offer), and approving sends the decision only', async () => {
    const sent = serve({ status: 500, body: null });
    const confirm = renderPanel('prp_none');
    expect(within(confirm).queryByTestId('grant-section')).toBeNull();
    fireEvent.click(within(confirm).getByTestId('confirm-approve'));
    await waitFor(() => expect(router.refresh).toHaveBeenCalled());
    expect(sent.map((s) => s.url)).toEqual(['/api/v1/proposals/prp_none/decisions']);
  });

  it('is collapsed and off until opted in; then its terms are labelled fields, and approving without it sends no grant', async () => {
    const sent = serve({ status: 500, body: null });
    const confirm = renderPanel('prp_off', HOLD);
    const toggle = within(confirm).getByRole('checkbox', { name: 'Also approve proposals like this for a while' });
    expect((toggle as HTMLInputElement).checked).toBe(false);
    expect(within(confirm).queryByTestId('grant-terms')).toBeNull();
    fireEvent.click(toggle);
    expect((within(confirm).getByRole('combobox', { name: 'Duration' }) as HTMLSelectElement).value).toBe('60');
    expect((within(confirm).getByRole('spinbutton', { name: 'At most (proposals)' }) as HTMLInputElement).value).toBe(
      '5',
    );
    expect(
      (within(confirm).getByRole('checkbox', { name: 'Only this resource (sku:filter-gray)' }) as HTMLInputElement)
        .checked,
    ).toBe(true);
    expect((within(confirm).getByRole('textbox', { name: 'Reason (required)' }) as HTMLTextAreaElement).required).toBe(
      true,
    );
    expect(within(confirm).queryByTestId('grant-max-total')).toBeNull();
    fireEvent.click(toggle);
    fireEvent.click(within(confirm).getByTestId('confirm-approve'));
    await waitFor(() => expect(router.refresh).toHaveBeenCalled());
    expect(sent).toHaveLength(1);
  });

  it('sends the grant after the approval, then shows its id and expiry', async () => {
    const sent = serve({ status: 201, body: grantView('prp_hold') });
    const confirm = renderPanel('prp_hold', HOLD);
    fireEvent.click(within(confirm).getByTestId('grant-toggle'));
    fireEvent.change(within(confirm).getByTestId('grant-minutes'), { target: { value: '120' } });
    fireEvent.change(within(confirm).getByTestId('grant-max-count'), { target: { value: '3' } });
    fireEvent.change(within(confirm).getByTestId('grant-reason'), { target: { value: 'Restock week' } });
    fireEvent.click(within(confirm).getByTestId('confirm-approve'));
    await screen.findByTestId('grant-made');
    expect(sent).toEqual([
      { url: '/api/v1/proposals/prp_hold/decisions', body: { decision: 'approve', payloadHash: HASH } },
      {
        url: '/api/v1/grants',
        body: { proposalId: 'prp_hold', minutes: 120, maxCount: 3, sameResource: true, reason: 'Restock week' },
      },
    ]);
    expect(screen.getByTestId('grant-made').textContent).toContain(
      'Standing grant g_0123456789abcdefghjk made: up to 5 proposals',
    );
    expect(screen.getByTestId('grant-made-until').getAttribute('dateTime')).toBe('2026-12-02T21:00:00.000Z');
    expect(router.refresh).toHaveBeenCalled();
  });

  it('for money takes the total in major units beside the currency and sends minor units; any resource when unticked', async () => {
    const sent = serve({ status: 201, body: grantView('prp_refund') });
    const confirm = renderPanel('prp_refund', REFUND);
    fireEvent.click(within(confirm).getByTestId('grant-toggle'));
    expect(within(confirm).getByTestId('grant-currency').textContent).toContain('EUR');
    fireEvent.change(within(confirm).getByTestId('grant-max-total'), { target: { value: '120.5' } });
    fireEvent.click(within(confirm).getByTestId('grant-same-resource'));
    fireEvent.change(within(confirm).getByTestId('grant-reason'), { target: { value: 'Known outage refunds' } });
    fireEvent.click(within(confirm).getByTestId('confirm-approve'));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]).toEqual({
      url: '/api/v1/grants',
      body: {
        proposalId: 'prp_refund',
        minutes: 60,
        maxCount: 5,
        maxTotalMinor: 12050,
        sameResource: false,
        reason: 'Known outage refunds',
      },
    });
  });

  it('refuses to send terms it can read as wrong, and says why beside each field; nothing is approved meanwhile', () => {
    const sent = serve({ status: 500, body: null });
    const confirm = renderPanel('prp_bad', REFUND);
    fireEvent.click(within(confirm).getByTestId('grant-toggle'));
    fireEvent.change(within(confirm).getByTestId('grant-max-count'), { target: { value: '0' } });
    fireEvent.change(within(confirm).getByTestId('grant-max-total'), { target: { value: '12.345' } });
    fireEvent.change(within(confirm).getByTestId('grant-reason'), { target: { value: '   ' } });
    fireEvent.click(within(confirm).getByTestId('confirm-approve'));
    expect(sent).toEqual([]);
    expect(within(confirm).getByTestId('grant-problem-max-count').textContent).toContain(
      'A whole number from 1 to 1000.',
    );
    expect(within(confirm).getByTestId('grant-problem-max-total').textContent).toContain(
      'EUR has 2 decimals: 12.345 has 3.',
    );
    expect(within(confirm).getByTestId('grant-problem-reason').textContent).toContain('Say why');
    expect(within(confirm).getByTestId('grant-reason').getAttribute('aria-invalid')).toBe('true');
    expect(within(confirm).getByTestId('grant-reason').getAttribute('aria-describedby')).toContain('reason-problem');
  });

  it('shows a refused grant’s message while the approval stands (the page is refreshed, no decision error)', async () => {
    serve({
      status: 409,
      body: {
        error: {
          code: 'policy_changed',
          message:
            'The hold_stock policy changed since this proposal was routed (v3, now v4); approve a proposal under ' +
            'the current one to grant.',
        },
      },
    });
    const confirm = renderPanel('prp_refused', HOLD);
    fireEvent.click(within(confirm).getByTestId('grant-toggle'));
    fireEvent.change(within(confirm).getByTestId('grant-reason'), { target: { value: 'Restock week' } });
    fireEvent.click(within(confirm).getByTestId('confirm-approve'));
    await screen.findByTestId('grant-refused');
    expect(screen.getByTestId('grant-refused').textContent).toContain(
      'The approval stands, but the grant was not made: The hold_stock policy changed since this proposal was ' +
        'routed (v3, now v4)',
    );
    expect(screen.queryByTestId('decision-error')).toBeNull();
    expect(router.refresh).toHaveBeenCalled();
  });

  it('with "Approve & next", leaves the grant’s outcome in the message on the next page', async () => {
    serve({
      status: 409,
      body: { error: { code: 'already_granted', message: 'A grant was already made from this proposal (g_x).' } },
    });
    const confirm = renderPanel('prp_next', HOLD);
    fireEvent.click(within(confirm).getByTestId('grant-toggle'));
    fireEvent.change(within(confirm).getByTestId('grant-reason'), { target: { value: 'Restock week' } });
    fireEvent.click(within(confirm).getByTestId('confirm-approve-next'));
    await waitFor(() => expect(router.push).toHaveBeenCalledWith('/'));
    expect(screen.getByTestId('grant-refused').textContent).toContain(
      'A grant was already made from this proposal (g_x).',
    );
  });

  // Last: a session ends once per page load (lib/client/session.ts), for every test after it too.
  it('a session that ended between the approval and the grant is said as such, and the page offers to sign in again', async () => {
    serve({ status: 401, body: null });
    const confirm = renderPanel('prp_session', HOLD);
    fireEvent.click(within(confirm).getByTestId('grant-toggle'));
    fireEvent.change(within(confirm).getByTestId('grant-reason'), { target: { value: 'Restock week' } });
    fireEvent.click(within(confirm).getByTestId('confirm-approve'));
    expect((await screen.findByTestId('grant-refused')).textContent).toContain(
      'Your session has ended; sign in again.',
    );
    expect(screen.getByTestId('session-ended')).toBeTruthy();
  });
});
