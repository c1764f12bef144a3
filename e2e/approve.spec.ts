import { expect, test } from '@playwright/test';
import { agentKey, proposeHold, signInWithForm } from './support';

test('an approver signs in, sees the queue, and approves the exact payload', async ({ page, request }) => {
  const proposal = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 3 });

  await page.goto('/');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2F$/);
  await signInWithForm(page, 'alice@acme.test');
  await expect(page).toHaveURL(/\/$/);

  const row = page.locator(`[data-testid="queue-item"][data-proposal-id="${proposal.id}"]`);
  await expect(row).toContainText('Hold 3 × filter-blue');
  await expect(row.getByTestId('queue-item-quorum')).toHaveText('0 of 1');
  await row.getByTestId('queue-item-link').click();

  await expect(page).toHaveURL(new RegExp(`/proposals/${proposal.id}$`));
  await expect(page.getByTestId('status-chip')).toHaveText('pending approval');
  await expect(page.getByTestId('payload-hash')).toHaveAttribute('data-full', proposal.payloadHash);
  await expect(page.getByTestId('arg-quantity')).toHaveText('3');

  await page.getByTestId('approve').click();
  await expect(page.getByTestId('approve')).toHaveCount(0);
  await expect(page.getByRole('group', { name: 'Confirm approval' })).toContainText(proposal.payloadHash.slice(0, 15));
  await page.getByTestId('confirm-approve').click();

  // Approved, and then executed by the worker within moments.
  await expect(page.getByTestId('status-chip')).toHaveText(/^(approved|executing|succeeded)$/);
  await expect(page.getByTestId('decision-outcome')).toContainText('Approved by Alice');
  // Told once: the outcome line names who approved; no list repeats it.
  await expect(page.getByTestId('decisions')).toHaveCount(0);
  await expect(page.locator('[data-testid="proposal-history-event"][data-type="proposal.approved"]')).toContainText(
    'Approved by',
  );

  const api = await request.get(`/api/v1/proposals/${proposal.id}`, {
    headers: { authorization: `Bearer ${agentKey('acme')}` },
  });
  expect(((await api.json()) as { status: string }).status).toMatch(/^(approved|executing|succeeded)$/);
});

test('a rejection needs a reason and ends the proposal', async ({ page, request }) => {
  const proposal = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 });
  await page.goto(`/proposals/${proposal.id}`);
  await signInWithForm(page, 'bob@acme.test');
  await expect(page).toHaveURL(new RegExp(`/proposals/${proposal.id}$`));
  await page.getByTestId('reject').click();
  await expect(page.getByTestId('confirm-reject')).toBeDisabled();
  await page.getByTestId('reject-reason').fill('Customer withdrew the request');
  await page.getByTestId('confirm-reject').click();
  await expect(page.getByTestId('status-chip')).toHaveText('rejected');
  await expect(page.getByTestId('decision-outcome')).toContainText('Rejected by Bob');
  await expect(page.getByTestId('decision-outcome')).toContainText('Customer withdrew the request');
  await expect(page.getByTestId('decisions')).toHaveCount(0);
});
