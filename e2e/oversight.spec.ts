import { expect, test } from '@playwright/test';
import { violations } from './axe';
import { apiSession, proposeHold, signInWithForm } from './support';

test('alice opens a proposal from a notification link and approves it; History → Oversight shows her figures, charts and the channel, with no serious axe violation', async ({
  page,
  request,
  baseURL,
}) => {
  const hold = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/history/oversight');
  await signInWithForm(page, 'alice@acme.test');
  await expect(page.getByTestId('oversight-page')).toBeVisible();
  await expect(page.getByTestId('history-tab-oversight')).toHaveAttribute('aria-current', 'page');

  // The link a notification carries: the first look counts as the notification's.
  await page.goto(`/proposals/${hold.id}?via=notification`);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  expect(
    (
      await alice.post(`/api/v1/proposals/${hold.id}/decisions`, {
        headers: { origin: baseURL! },
        data: { decision: 'approve', payloadHash: hold.payloadHash },
      })
    ).status(),
  ).toBe(200);
  // A client cannot report a look: only the server records first looks (the path is gone).
  expect(
    (
      await alice.post(`/api/v1/proposals/${hold.id}/views`, {
        headers: { origin: baseURL! },
        data: { channel: 'queue' },
      })
    ).status(),
  ).toBe(404);

  await page.goto('/history/oversight');
  const row = page.getByTestId('oversight-approver-row').filter({ hasText: 'Alice' });
  await expect(row).toBeVisible();
  await expect(page.getByTestId('oversight-chart-rate')).toBeVisible();
  await expect(page.getByTestId('oversight-chart-dwell')).toBeVisible();
  await expect(page.getByTestId('oversight-channels')).toContainText('A notification link');
  await expect(page.getByTestId('oversight-actions')).toContainText('hold_stock');
  await expect(page.getByTestId('oversight-alarm-settings')).toContainText('at least 20 decisions');

  const api = await alice.get('/api/v1/oversight?days=30');
  expect(api.status()).toBe(200);
  const figures = (await api.json()) as { days: number; channels: { channel: string; decisions: number }[] };
  expect(figures.days).toBe(30);
  expect(figures.channels.find((channel) => channel.channel === 'notification')?.decisions).toBeGreaterThanOrEqual(1);

  await page.getByTestId('oversight-days-30').click();
  await expect(page).toHaveURL(/days=30/);
  await expect(page.getByTestId('oversight-days-30')).toHaveAttribute('aria-current', 'page');
  expect(await violations(page)).toEqual([]);
});
