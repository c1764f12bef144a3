import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { GrantView } from '@/lib/grants/list';
import { GrantsTable } from './grants-table';

vi.mock('next/navigation', () => ({ useRouter: () => ({ refresh: vi.fn(), push: vi.fn() }) }));

const base: GrantView = {
  id: 'g_0000000000000000000a',
  proposalId: 'prp_00000000000000000001',
  grantedBy: { id: 'usr_alice', name: 'Alice' },
  action: 'hold_stock',
  agentKeyId: 'key_acme',
  agentName: 'acme-support-bot',
  resourceKey: 'sku:filter-gray',
  rule: 'holds-one-approver',
  policyVersion: 1,
  currency: null,
  maxCount: 5,
  maxTotalMinor: null,
  usedCount: 1,
  usedTotalMinor: 0,
  reason: 'Restock week',
  createdAt: '2026-12-02T19:00:00.000Z',
  expiresAt: '2026-12-02T20:00:00.000Z',
  state: 'active',
  endedAt: null,
  endedBy: null,
  endNote: null,
};

const refund: GrantView = {
  ...base,
  id: 'g_0000000000000000000b',
  action: 'issue_refund',
  resourceKey: null,
  currency: 'EUR',
  maxTotalMinor: 50000,
  usedCount: 2,
  usedTotalMinor: 12050,
};
const uncapped: GrantView = { ...refund, id: 'g_0000000000000000000c', maxTotalMinor: null };
const revoked: GrantView = {
  ...base,
  id: 'g_0000000000000000000d',
  state: 'revoked',
  endedAt: '2026-12-02T19:30:00.000Z',
  endedBy: 'usr_carol',
  endNote: 'Sale over',
};

function table(grants: GrantView[]) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <GrantsTable
        grants={grants}
        endedBy={{ [revoked.id]: { type: 'user', id: 'usr_carol', name: 'Carol', label: 'Carol' } }}
        mayRevoke={(grant) => grant.state === 'active' && grant.id !== refund.id}
      />
    </QueryClientProvider>,
  );
  return (id: string) => screen.getAllByTestId('grant-row').find((row) => row.dataset.grantId === id)!;
}

describe('GrantsTable', () => {
  it('says what each grant covers and how much of it is used, money in major units with its currency', () => {
    const row = table([base, refund, uncapped]);
    expect(within(row(base.id)).getByTestId('grant-resource').textContent).toBe(
      'on sku:filter-gray · rule holds-one-approver v1',
    );
    expect(within(row(base.id)).getByTestId('grant-used').textContent).toBe('1 of 5');
    expect(within(row(base.id)).queryByTestId('grant-used-total')).toBeNull();
    expect(within(row(refund.id)).getByTestId('grant-resource').textContent).toContain('on any resource');
    expect(within(row(refund.id)).getByTestId('grant-used-total').textContent).toBe('120.50 of 500.00 EUR');
    expect(within(row(uncapped.id)).getByTestId('grant-used-total').textContent).toBe('120.50 EUR (no total cap)');
    expect(within(row(base.id)).getByTestId('grant-proposal-link').getAttribute('href')).toBe(
      '/proposals/prp_00000000000000000001',
    );
  });

  it('offers Revoke only where the page allows it, and says who ended an ended grant and why', () => {
    const row = table([base, refund, revoked]);
    expect(within(row(base.id)).getByTestId('grant-revoke').textContent).toBe('Revoke…');
    expect(within(row(refund.id)).queryByTestId('grant-revoke')).toBeNull();
    expect(within(row(revoked.id)).queryByTestId('grant-revoke')).toBeNull();
    expect(within(row(revoked.id)).getByTestId('grant-state').textContent).toBe('revoked');
    expect(within(row(revoked.id)).getByTestId('grant-ended-by').textContent).toBe('Carol');
    expect(within(row(revoked.id)).getByTestId('grant-end-note').textContent).toBe('“Sale over”');
  });
});
