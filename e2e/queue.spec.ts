import { expect, test, type Page } from '@playwright/test';
import { apiSession, proposeHold, proposeRefund, signInWithForm } from './support';

const row = (page: Page, id: string) => page.locator(`[data-testid="queue-item"][data-proposal-id="${id}"]`);

async function signIn(page: Page, email: string) {
  await page.goto('/');
  await signInWithForm(page, email);
  await expect(page).toHaveURL(/\/$/);
}

test('filters and sort live in the URL; invalid values fall back on the page and are refused by the API', async ({ page, request, baseURL }) => {
  const medium = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 4 });
  const low = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 });
  const refund = await proposeRefund(request, { orderId: 'ord_1843', amountMinor: 100, currency: 'EUR', reason: 'Queue filter test' });
  await signIn(page, 'alice@acme.test');

  await page.goto('/?risk=medium&sort=newest');
  await expect(page.getByTestId('queue-sort')).toHaveValue('newest');
  await expect(page.getByTestId('queue-filter-risk')).toHaveValue('medium');
  await expect(row(page, medium.id)).toBeVisible();
  await expect(row(page, medium.id).getByTestId('queue-item-risk')).toHaveText(/medium risk/);
  await expect(row(page, low.id)).toHaveCount(0);

  await page.getByTestId('queue-filter-risk').selectOption('');
  await expect(page).toHaveURL(/\/\?sort=newest$/);
  await page.getByTestId('queue-filter-action').selectOption('issue_refund');
  await expect(page).toHaveURL(/\/\?action=issue_refund&sort=newest$/);
  await expect(row(page, refund.id)).toBeVisible();
  await expect(row(page, medium.id)).toHaveCount(0);
  await expect(page.getByTestId('queue-item').first()).toHaveAttribute('data-proposal-id', refund.id);

  await page.getByTestId('queue-filter-action').selectOption('');
  await page.getByTestId('queue-sort').selectOption('expiring');
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId('queue-sort')).toHaveValue('expiring');

  await page.goto('/?sort=cheapest&risk=low');
  await expect(page.getByTestId('queue-sort')).toHaveValue('expiring');
  await expect(page.getByTestId('queue-filter-risk')).toHaveValue('low');
  await expect(row(page, low.id)).toBeVisible();

  const refused = await page.request.get('/api/v1/queue?sort=cheapest');
  expect(refused.status()).toBe(400);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('sort must be one of expiring, newest, oldest');

  // Leave the order's balance as it was for other specs.
  const bob = await apiSession(baseURL!, 'bob@acme.test');
  const rejected = await bob.post(`/api/v1/proposals/${refund.id}/decisions`, {
    headers: { origin: baseURL!, 'content-type': 'application/json' },
    data: { decision: 'reject', payloadHash: refund.payloadHash, reason: 'Queue filter test done' },
  });
  expect(rejected.status()).toBe(200);
  await bob.dispose();
});

test('keyboard: ? help, j/k move, a approves after a confirmation that repeats the hash, r rejects with a reason, enter opens', async ({ page, request }) => {
  const opened = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  const rejected = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 2 });
  const approved = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 3 });
  await signIn(page, 'alice@acme.test');
  await page.goto('/?sort=newest');
  await expect(page.getByTestId('queue-item').first()).toHaveAttribute('data-proposal-id', approved.id);
  await expect(row(page, approved.id)).toHaveAttribute('aria-selected', 'true');
  // Keys pressed before the page is interactive would be lost: wait until the shortcuts listen.
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');

  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcuts-help')).toBeVisible();
  await expect(page.getByTestId('shortcuts-help')).toContainText('approve');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('shortcuts-help')).toBeHidden();

  await page.keyboard.press('j');
  await expect(row(page, rejected.id)).toHaveAttribute('aria-selected', 'true');
  await expect(row(page, approved.id)).toHaveAttribute('aria-selected', 'false');
  await page.keyboard.press('k');
  await expect(row(page, approved.id)).toHaveAttribute('aria-selected', 'true');

  await page.keyboard.press('a');
  const approveDialog = page.getByTestId('queue-approve-dialog');
  await expect(approveDialog).toBeVisible();
  await expect(approveDialog).toContainText('Approve');
  await expect(approveDialog.getByTestId(`queue-confirm-hash-${approved.id}`)).toHaveText(approved.payloadHash);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId(`queue-result-${approved.id}`)).toHaveAttribute('data-outcome', 'done');
  await expect(page.getByTestId(`queue-result-${approved.id}`)).toContainText('approved');
  await expect(row(page, approved.id)).toHaveCount(0);

  // Focus stays at the same place: the next row down is now the first.
  await expect(row(page, rejected.id)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('r');
  const rejectDialog = page.getByTestId('queue-reject-dialog');
  await expect(rejectDialog).toBeVisible();
  await expect(rejectDialog.getByTestId('queue-confirm-reject')).toBeDisabled();
  await page.keyboard.type('jk typed here stays text');
  await expect(row(page, rejected.id)).toHaveAttribute('aria-selected', 'true');
  await rejectDialog.getByTestId('queue-reject-reason').fill('');
  await rejectDialog.getByTestId('queue-reject-preset-2').click();
  await expect(rejectDialog.getByTestId('queue-reject-reason')).toHaveValue('Needs more evidence');
  await rejectDialog.getByTestId('queue-confirm-reject').click();
  await expect(page.getByTestId(`queue-result-${rejected.id}`)).toContainText('rejected');
  await expect(row(page, rejected.id)).toHaveCount(0);

  await expect(row(page, opened.id)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/proposals/${opened.id}$`));
});

test('batch decisions post each item with its own hash and report each result, including one decided meanwhile', async ({ page, request, baseURL }) => {
  const first = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 });
  const second = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 2 });
  await signIn(page, 'alice@acme.test');
  await page.goto('/?sort=newest');
  await page.getByTestId(`queue-select-${first.id}`).check();
  await page.getByTestId(`queue-select-${second.id}`).check();
  await expect(page.getByTestId('queue-approve-selected')).toHaveText('Approve 2 selected');

  // Someone else decides the first one while it sits selected here.
  const bob = await apiSession(baseURL!, 'bob@acme.test');
  const meanwhile = await bob.post(`/api/v1/proposals/${first.id}/decisions`, {
    headers: { origin: baseURL!, 'content-type': 'application/json' },
    data: { decision: 'approve', payloadHash: first.payloadHash },
  });
  expect(meanwhile.status()).toBe(200);
  await bob.dispose();

  await page.getByTestId('queue-approve-selected').click();
  const dialog = page.getByTestId('queue-approve-dialog');
  await expect(dialog.getByTestId(`queue-confirm-hash-${first.id}`)).toHaveText(first.payloadHash);
  await expect(dialog.getByTestId(`queue-confirm-hash-${second.id}`)).toHaveText(second.payloadHash);
  await dialog.getByTestId('queue-confirm-approve').click();

  await expect(page.getByTestId(`queue-result-${second.id}`)).toHaveAttribute('data-outcome', 'done');
  await expect(page.getByTestId(`queue-result-${first.id}`)).toHaveAttribute('data-outcome', 'already_decided');
  await expect(page.getByTestId(`queue-result-${first.id}`)).toContainText('already_decided');
  await expect(row(page, first.id)).toHaveCount(0);
  await expect(row(page, second.id)).toHaveCount(0);

  // One reason for all, still one request and one result per item.
  const third = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 });
  const fourth = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 2 });
  await page.reload();
  await page.getByTestId(`queue-select-${third.id}`).check();
  await page.getByTestId(`queue-select-${fourth.id}`).check();
  await page.getByTestId('queue-reject-selected').click();
  const reject = page.getByTestId('queue-reject-dialog');
  await reject.getByTestId('queue-reject-reason').fill('Duplicate of an earlier hold');
  await reject.getByTestId('queue-confirm-reject').click();
  for (const id of [third.id, fourth.id]) {
    await expect(page.getByTestId(`queue-result-${id}`)).toHaveAttribute('data-outcome', 'done');
    await expect(page.getByTestId(`queue-result-${id}`)).toContainText('rejected');
    await expect(row(page, id)).toHaveCount(0);
  }
});

test('a viewer reads the queue without selection or batch controls', async ({ page, request }) => {
  const proposal = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  await signIn(page, 'dave@acme.test');
  await page.goto('/?sort=newest');
  await expect(row(page, proposal.id)).toBeVisible();
  await expect(page.getByTestId('queue-read-only')).toBeVisible();
  await expect(page.getByTestId('queue-approve-selected')).toHaveCount(0);
  await expect(page.getByTestId('queue-reject-selected')).toHaveCount(0);
  await expect(page.getByTestId(`queue-select-${proposal.id}`)).toHaveCount(0);
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');
  await page.keyboard.press('a');
  await expect(page.getByTestId('queue-approve-dialog')).toBeHidden();
});

test('a new proposal waits behind an "N new — show" bar; the tab title counts the queue', async ({ page, request }) => {
  await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  await signIn(page, 'alice@acme.test');
  await page.goto('/?sort=newest');
  const firstRow = page.getByTestId('queue-item').first();
  const before = await firstRow.getAttribute('data-proposal-id');
  await expect(page).toHaveTitle(/^\(\d+\) Queue · Countersign$/);

  const fresh = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 2 });
  await expect(page.getByTestId('queue-new-bar')).toHaveText('1 new — show', { timeout: 12_000 });
  await expect(firstRow).toHaveAttribute('data-proposal-id', before!);
  await expect(row(page, fresh.id)).toHaveCount(0);

  await page.getByTestId('queue-new-bar').click();
  await expect(firstRow).toHaveAttribute('data-proposal-id', fresh.id);
  await expect(page.getByTestId('queue-new-bar')).toHaveCount(0);
});
