import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { serveJson as serve } from '@/test/fetch-stub';
import { EvidenceResolverSetting } from './evidence-resolver-setting';

const router = vi.hoisted(() => ({ refresh: vi.fn(), push: vi.fn() }));
vi.mock('next/navigation', () => ({ useRouter: () => router }));

const URL_NOW = 'http://127.0.0.1:4795/evidence';

function show(resolver: string | null, canEdit = true) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { mutations: { retry: false } } })}>
      <EvidenceResolverSetting resolver={resolver} canEdit={canEdit} />
    </QueryClientProvider>,
  );
}
const field = () => screen.getByRole('textbox', { name: 'Evidence resolver URL' }) as HTMLInputElement;

beforeEach(() => router.refresh.mockReset());
afterEach(() => vi.unstubAllGlobals());

describe('EvidenceResolverSetting', () => {
  it('says where evidence is read; a non-admin gets no form', () => {
    show(null, false);
    expect(screen.getByTestId('evidence-resolver').textContent).toBe(
      'The evidence refs agents cite are read from the systems of record.',
    );
    expect(screen.queryByRole('textbox')).toBeNull();
  });

  it('saves the URL as typed, says so, and refreshes the page', async () => {
    const sent = serve({ status: 200, body: { resolver: URL_NOW, changed: true } });
    show(null);
    fireEvent.change(field(), { target: { value: URL_NOW } });
    fireEvent.click(screen.getByTestId('evidence-resolver-save'));
    await waitFor(() => expect(screen.getByTestId('evidence-resolver-saved').textContent).toBe('Saved.'));
    expect(sent).toEqual([{ url: '/api/v1/admin/evidence/settings', method: 'PUT', body: { resolver: URL_NOW } }]);
    expect(screen.getByTestId('evidence-resolver-url').textContent).toBe(URL_NOW);
    expect(router.refresh).toHaveBeenCalledTimes(1);
  });

  it('clears it back to the systems of record', async () => {
    const sent = serve({ status: 200, body: { resolver: null, changed: true } });
    show(URL_NOW);
    expect(field().value).toBe(URL_NOW);
    fireEvent.click(screen.getByTestId('evidence-resolver-clear'));
    await waitFor(() => expect(screen.getByTestId('evidence-resolver-url').textContent).toBe('the systems of record'));
    expect(sent.map((each) => each.body)).toEqual([{ resolver: null }]);
    expect(field().value).toBe('');
    expect(screen.queryByTestId('evidence-resolver-clear')).toBeNull();
  });

  it("shows the server's refusal, keeping what was typed", async () => {
    serve({
      status: 422,
      body: {
        error: {
          code: 'invalid_evidence_settings',
          message:
            '"resolver" names an origin the operator does not allow; ACTION_ALLOWED_ORIGINS lists the allowed ones.',
        },
      },
    });
    show(null);
    fireEvent.change(field(), { target: { value: 'https://elsewhere.example/evidence' } });
    fireEvent.click(screen.getByTestId('evidence-resolver-save'));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('ACTION_ALLOWED_ORIGINS');
    expect(field().value).toBe('https://elsewhere.example/evidence');
    expect(screen.getByTestId('evidence-resolver-url').textContent).toBe('the systems of record');
    expect(router.refresh).not.toHaveBeenCalled();
  });
});
