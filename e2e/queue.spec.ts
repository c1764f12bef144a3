import { expect, type Page, test } from '@playwright/test';
import { apiSession, proposeHold, proposeRefund, signInWithForm } from './support';

const row = (page: Page, id: string) => page.locator(`[data-testid="queue-item"][data-proposal-id="${id}"]`);

/** Leaves the order's balance as it was for other specs: bob rejects the refund. */
async function rejectAsBob(baseURL: string, proposal: { id: string; payloadHash: string }, reason: string) {
  const bob = await apiSession(baseURL, 'bob@acme.test');
  const rejected = await bob.post(`/api/v1/proposals/${proposal.id}/decisions`, {
    headers: { origin: baseURL, 'content-type': 'application/json' },
    data: { decision: 'reject', payloadHash: proposal.payloadHash, reason },
  });
  expect(rejected.status()).toBe(200);
  await bob.dispose();
}

async function signIn(page: Page, email: string) {
  await page.goto('/');
  await signInWithForm(page, email);
  await expect(page).toHaveURL(/\/$/);
}

test('filters and sort live in the URL; invalid values fall back on the page and are refused by the API', async ({
  page,
  request,
  baseURL,
}) => {
  const medium = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 4 });
  const low = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 });
  const refund = await proposeRefund(request, {
    orderId: 'ord_1843',
    amountMinor: 100,
    currency: 'EUR',
    reason: 'Queue filter test',
  });
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
  expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
    'sort must be one of expiring, newest, oldest',
  );

  await rejectAsBob(baseURL!, refund, 'Queue filter test done');
});

test('keyboard: ? help, j/k move, a confirms a risky item with its risk and hash, r rejects with a reason, enter opens', async ({
  page,
  request,
}) => {
  const opened = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  const rejected = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 2 });
  // Four of filter-blue is medium risk: `a` stops for a look.
  const approved = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 4 });
  await signIn(page, 'alice@acme.test');
  await page.goto('/?sort=newest');
  await expect(page.getByTestId('queue-item').first()).toHaveAttribute('data-proposal-id', approved.id);
  await expect(row(page, approved.id)).toHaveAttribute('data-focused', 'true');
  // aria-selected says whether the box is ticked, never where focus is.
  await expect(row(page, approved.id)).toHaveAttribute('aria-selected', 'false');
  // Keys pressed before the page is interactive would be lost: wait until the shortcuts listen.
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');

  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcuts-help')).toBeVisible();
  await expect(page.getByTestId('shortcuts-help')).toContainText('approve');
  await expect(page.getByTestId('shortcuts-help')).toContainText('anything else asks to confirm first');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('shortcuts-help')).toBeHidden();

  await page.keyboard.press('j');
  await expect(row(page, rejected.id)).toHaveAttribute('data-focused', 'true');
  await expect(row(page, rejected.id).getByTestId('queue-item-link')).toBeFocused();
  await expect(row(page, approved.id)).not.toHaveAttribute('data-focused', 'true');
  await page.keyboard.press('k');
  await expect(row(page, approved.id)).toHaveAttribute('data-focused', 'true');
  await expect(page.getByTestId('queue-preview')).toHaveAttribute('data-proposal-id', approved.id);

  await page.keyboard.press('a');
  const approveDialog = page.getByTestId('queue-approve-dialog');
  await expect(approveDialog).toBeVisible();
  await expect(approveDialog).toContainText('Approve');
  await expect(approveDialog.getByTestId('signals-risk')).toContainText('medium risk');
  await expect(approveDialog.getByTestId(`queue-confirm-hash-${approved.id}`)).toHaveText(approved.payloadHash);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId(`queue-result-${approved.id}`)).toHaveAttribute('data-outcome', 'done');
  await expect(page.getByTestId(`queue-result-${approved.id}`)).toContainText('approved');
  await expect(row(page, approved.id)).toHaveCount(0);

  // Focus went on to the next item that needs alice.
  await expect(row(page, rejected.id)).toHaveAttribute('data-focused', 'true');
  await page.keyboard.press('r');
  const rejectDialog = page.getByTestId('queue-reject-dialog');
  await expect(rejectDialog).toBeVisible();
  await expect(rejectDialog.getByTestId('queue-confirm-reject')).toBeDisabled();
  await page.keyboard.type('jk typed here stays text');
  await expect(row(page, rejected.id)).toHaveAttribute('data-focused', 'true');
  await rejectDialog.getByTestId('queue-reject-reason').fill('');
  await rejectDialog.getByTestId('queue-reject-preset-2').click();
  await expect(rejectDialog.getByTestId('queue-reject-reason')).toHaveValue('Needs more evidence');
  await rejectDialog.getByTestId('queue-confirm-reject').click();
  await expect(page.getByTestId(`queue-result-${rejected.id}`)).toContainText('rejected');
  await expect(row(page, rejected.id)).toHaveCount(0);

  await expect(row(page, opened.id)).toHaveAttribute('data-focused', 'true');
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/proposals/${opened.id}$`));
});

test('a clear item approves with one key, with a pending indicator; arrows, Home and End move; x ticks the box', async ({
  page,
  request,
}) => {
  // Clear means no flags: not the SKU's first use (the older one is), far from its hold limit (4).
  const older = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  const clear = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  await signIn(page, 'alice@acme.test');
  await page.goto('/?sort=newest');
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');
  await expect(row(page, clear.id)).toHaveAttribute('data-focused', 'true');

  await page.keyboard.press('End');
  await expect(page.getByTestId('queue-item').last()).toHaveAttribute('data-focused', 'true');
  await page.keyboard.press('Home');
  await expect(row(page, clear.id)).toHaveAttribute('data-focused', 'true');
  await page.keyboard.press('ArrowDown');
  await expect(row(page, older.id)).toHaveAttribute('data-focused', 'true');
  await expect(row(page, older.id).getByTestId('queue-item-link')).toBeFocused();
  await page.keyboard.press('x');
  await expect(row(page, older.id)).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId(`queue-select-${older.id}`)).toBeChecked();
  await page.keyboard.press('x');
  await expect(row(page, older.id)).toHaveAttribute('aria-selected', 'false');
  await page.keyboard.press('ArrowUp');
  await expect(row(page, clear.id)).toHaveAttribute('data-focused', 'true');

  // The decision is held until the pending state has been seen, then let through.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(`**/api/v1/proposals/${clear.id}/decisions`, async (route) => {
    await released;
    await route.continue();
  });
  // One key only once the preview's live check of its facts came back clear.
  await expect(page.getByTestId('queue-preview')).toHaveAttribute('data-proposal-id', clear.id);
  await expect(page.getByTestId('queue-preview-facts')).toHaveAttribute('data-state', 'fresh');
  await page.keyboard.press('a');
  await expect(page.getByTestId('queue-approve-dialog')).toBeHidden();
  await expect(row(page, clear.id).getByTestId('queue-item-pending')).toHaveText('Approving…');
  await expect(row(page, clear.id)).toHaveAttribute('aria-busy', 'true');
  release();
  await expect(page.getByTestId(`queue-result-${clear.id}`)).toHaveAttribute('data-outcome', 'done');
  await expect(row(page, clear.id)).toHaveCount(0);
  await expect(row(page, older.id)).toHaveAttribute('data-focused', 'true');
  await expect(page.getByTestId('queue-approve-rule')).toContainText(
    'approves at once only a low-severity item whose facts were just re-checked',
  );
});

test('an item alice approved waits on others and says why; the first of two approvals runs nothing', async ({
  page,
  request,
  baseURL,
}) => {
  const refund = await proposeRefund(
    request,
    { orderId: 'ord_1843', amountMinor: 15000, currency: 'EUR', reason: 'Two-approver queue test' },
    ['ticket_message_73'],
  );
  await signIn(page, 'alice@acme.test');
  await page.goto('/?sort=newest&action=issue_refund');
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');
  await expect(row(page, refund.id)).toHaveAttribute('data-focused', 'true');
  await expect(row(page, refund.id).getByTestId('queue-item-reason')).toBeHidden(); // in the preview on a desktop
  await expect(page.getByTestId('queue-preview').getByTestId('signals-reason')).toContainText(
    'Two-approver queue test',
  );
  await expect(page.getByTestId('queue-preview').getByTestId('signals-evidence-item')).toContainText(
    'Customer requested a full refund',
  );
  await expect(page.getByTestId('queue-preview-arg-amountMinor')).toContainText('150.00 EUR');

  await page.keyboard.press('a');
  const dialog = page.getByTestId('queue-approve-dialog');
  await expect(dialog.getByTestId('queue-confirm-quorum')).toHaveText(
    'Nothing runs yet: 1 more approval needed after yours',
  );
  await expect(dialog.getByTestId('signals-risk')).toContainText('high risk');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId(`queue-result-${refund.id}`)).toContainText('Approved by you · 1 more needed');
  await expect(row(page, refund.id)).toHaveCount(0);

  await page.getByTestId('queue-group-waiting').click();
  await expect(page).toHaveURL(/\/\?group=waiting&action=issue_refund&sort=newest$/);
  await expect(row(page, refund.id).getByTestId('queue-item-part')).toHaveText('You approved · 1 more needed');
  await expect(row(page, refund.id).getByTestId('queue-item-quorum')).toHaveText('1 of 2');
  await expect(page.getByTestId(`queue-select-${refund.id}`)).toHaveCount(0);
  await expect(row(page, refund.id)).not.toHaveAttribute('aria-selected', /.*/);
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');
  await page.getByTestId('queue-item').first().getByTestId('queue-item-link').focus();
  await row(page, refund.id).getByTestId('queue-item-link').focus();
  for (const key of ['a', 'r', 'x']) await page.keyboard.press(key);
  await expect(page.getByTestId('queue-approve-dialog')).toBeHidden();
  await expect(page.getByTestId('queue-reject-dialog')).toBeHidden();
  await expect(page.getByTestId('queue-group-waiting')).toHaveAttribute('aria-current', 'page');

  const api = await page.request.get('/api/v1/queue?group=waiting&action=issue_refund');
  expect(api.status()).toBe(200);
  const waiting = (await api.json()) as { items: { id: string; mine: unknown }[] };
  expect(waiting.items.find((item) => item.id === refund.id)?.mine).toEqual({ kind: 'approved', more: 1 });
  const refused = await page.request.get('/api/v1/queue?group=mine');
  expect(refused.status()).toBe(400);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
    'group must be one of needs-you, waiting, all; got "mine"',
  );
  await page.goto('/?group=mine');
  await expect(page.getByTestId('queue-group-needs-you')).toHaveAttribute('aria-current', 'page');

  await rejectAsBob(baseURL!, refund, 'Queue grouping test done');
});

test('when the session ends, the queue says so, links back to the same view and disables everything', async ({
  page,
  request,
  context,
}) => {
  const proposal = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 });
  await signIn(page, 'alice@acme.test');
  await page.goto('/?sort=newest');
  await expect(row(page, proposal.id)).toBeVisible();
  await expect(page.getByTestId('queue-zone')).toHaveText(/^Times in \S+$/);
  // Batch buttons show only while something is selected: tick one so they are there to be disabled.
  await expect(page.getByTestId('queue-approve-selected')).toHaveCount(0);
  await page.getByTestId(`queue-select-${proposal.id}`).check();
  await context.clearCookies();
  const banner = page.getByTestId('queue-session-ended');
  await expect(banner).toBeVisible({ timeout: 15_000 });
  await expect(banner).toHaveAttribute('role', 'alert');
  await expect(banner.getByTestId('queue-sign-in-again')).toHaveAttribute(
    'href',
    '/signin?callbackUrl=%2F%3Fsort%3Dnewest',
  );
  await expect(page.getByTestId(`queue-select-${proposal.id}`)).toBeDisabled();
  await expect(page.getByTestId('queue-select-all')).toBeDisabled();
  await expect(page.getByTestId('queue-approve-selected')).toBeDisabled();
  await expect(page.getByTestId('queue-reject-selected')).toBeDisabled();
  await expect(page.getByTestId('queue-preview-approve')).toBeDisabled();
  await page.keyboard.press('a');
  await expect(page.getByTestId('queue-approve-dialog')).toBeHidden();

  await banner.getByTestId('queue-sign-in-again').click();
  await signInWithForm(page, 'alice@acme.test');
  await expect(page).toHaveURL(/\/\?sort=newest$/);
  await expect(row(page, proposal.id)).toBeVisible();
});

test('batch decisions post each item with its own hash and report each result, including one decided meanwhile', async ({
  page,
  request,
  baseURL,
}) => {
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
  // Nothing needs a viewer: the default group is empty and points to everything.
  await page.goto('/?sort=newest');
  await expect(page.getByTestId('queue-empty')).toContainText('viewers read the queue');
  await expect(page.getByTestId('queue-group-needs-you')).toHaveText('Needs you · 0');
  await page.getByTestId('queue-empty-waiting').click();
  await expect(page).toHaveURL(/\/\?group=all&sort=newest$/);
  await expect(row(page, proposal.id)).toBeVisible();
  await expect(row(page, proposal.id).getByTestId('queue-item-part')).toHaveText('Needs an approver');
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
