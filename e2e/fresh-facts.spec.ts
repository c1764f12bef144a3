import { expect, type Page, test } from '@playwright/test';
import { FRESH_FACTS_ORDER } from '@/demo/systems/world';
import { apiSession, ownAgent, proposeHold, proposeRefund, refundDirectly, signInWithForm } from './support';

/**
 * Issue 24, deliverable 4: previewing or opening a proposal re-checks its facts live; the page and
 * the preview show one "at proposal → now" view; `a` approves in one key only when that check is
 * fresh and clear, and otherwise stops at the dialog, which shows why.
 *
 * Isolation: each test proposes with an agent key of its own and filters the queue by it, so the
 * row it expects first is first whatever another worker proposes in acme meanwhile.
 */

const row = (page: Page, id: string) => page.locator(`[data-testid="queue-item"][data-proposal-id="${id}"]`);

async function signIn(page: Page, email: string, path = '/') {
  await page.goto(path);
  await signInWithForm(page, email);
}

async function rejectAs(baseURL: string, email: string, proposal: { id: string; payloadHash: string }, reason: string) {
  const session = await apiSession(baseURL, email);
  const response = await session.post(`/api/v1/proposals/${proposal.id}/decisions`, {
    headers: { origin: baseURL, 'content-type': 'application/json' },
    data: { decision: 'reject', payloadHash: proposal.payloadHash, reason },
  });
  expect(response.status()).toBe(200);
  await session.dispose();
}

test('a refund whose order moved outside Countersign: the page shows at proposal → now, and `a` stops at the dialog with the change', async ({
  page,
  request,
  baseURL,
}) => {
  const agent = await ownAgent(baseURL!, 'fresh-facts');
  const refund = (reason: string) =>
    proposeRefund(request, { orderId: FRESH_FACTS_ORDER, amountMinor: 1000, currency: 'EUR', reason }, [], agent);
  // A first proposal on the order, rejected, so the one under test is not flagged "first use".
  await rejectAs(baseURL!, 'bob@acme.test', await refund('Fresh facts e2e: first'), 'Fresh facts e2e clean-up');
  const proposal = await refund('Fresh facts e2e: under test');

  // Someone refunds 20.00 EUR outside Countersign: 500.00 → 480.00 EUR left, the 10.00 EUR refund still holds.
  await refundDirectly(request, FRESH_FACTS_ORDER, 2000, 'EUR');

  await signIn(page, 'alice@acme.test', `/proposals/${proposal.id}`);
  await expect(page).toHaveURL(new RegExp(`/proposals/${proposal.id}$`));
  const facts = page.getByTestId('fresh-facts');
  await expect(facts).toHaveAttribute('data-state', 'changed');
  await expect(facts.getByTestId('facts-at-proposal')).toContainText('500.00 EUR not yet refunded');
  await expect(facts.getByTestId('facts-now')).toContainText('480.00 EUR not yet refunded');
  await expect(facts.getByTestId('facts-checked-at')).toBeVisible();
  await expect(page.getByTestId('drift-note')).toHaveText(
    'Changed since proposed: order balance changed from 500.00 EUR to 480.00 EUR since it was proposed; it still holds.',
  );
  // Meaning speaks of the facts at proposal, and says so: no "passed — 500.00 not yet refunded" standing alone.
  await expect(page.getByTestId('gate-meaning').getByTestId('gate-verdict')).toContainText('passed at proposal');
  await expect(page.getByTestId('proposal-severity')).toHaveAttribute('data-severity', 'low');
  await expect(page.getByTestId('proposal-severity')).toContainText('low risk');
  await expect(page.getByTestId('payload-title')).toHaveText('What will run');

  // In the queue the preview checks it too, and `a` stops at the dialog, which shows the change.
  await page.goto(`/?sort=newest&action=issue_refund&agent=${agent.name}`);
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');
  await expect(row(page, proposal.id)).toHaveAttribute('data-focused', 'true');
  await expect(page.getByTestId('queue-preview-facts')).toHaveAttribute('data-state', 'changed');
  await page.keyboard.press('a');
  const dialog = page.getByTestId('queue-approve-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('queue-confirm-facts')).toHaveAttribute('data-state', 'changed');
  await expect(dialog.getByTestId('drift-note')).toContainText('order balance changed from 500.00 EUR to 480.00 EUR');
  await expect(dialog.getByTestId('facts-now')).toContainText('480.00 EUR not yet refunded');
  // It still holds: confirming approves it (never "✗ stale" after the fact), and the result says so once.
  await page.keyboard.press('Enter');
  const result = page.getByTestId(`queue-result-${proposal.id}`);
  await expect(result).toHaveAttribute('data-outcome', 'done');
  await expect(result).not.toContainText('now approved');

  // Once it ran, the page titles the payload "What ran".
  await page.goto(`/proposals/${proposal.id}`);
  await expect(page.getByTestId('status-chip')).toHaveText('succeeded', { timeout: 20_000 });
  await expect(page.getByTestId('payload-title')).toHaveText('What ran');
  await expect(page.getByTestId('fresh-facts')).toHaveAttribute('data-state', 'closed');
});

test('a clear hold whose facts were just checked fresh approves with one key', async ({ page, request, baseURL }) => {
  // Clear means no flags: not the SKU's first use (the earlier one is), far from its hold limit (4).
  const agent = await ownAgent(baseURL!, 'fresh-facts');
  const earlier = await proposeHold(request, agent, { sku: 'filter-blue', quantity: 1 });
  const hold = await proposeHold(request, agent, { sku: 'filter-blue', quantity: 1 });
  await signIn(page, 'alice@acme.test', `/?sort=newest&action=hold_stock&agent=${agent.name}`);
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');
  await expect(row(page, hold.id)).toHaveAttribute('data-focused', 'true');
  await expect(row(page, hold.id).getByTestId('flag')).toHaveCount(0);
  const preview = page.getByTestId('queue-preview-facts');
  await expect(preview).toHaveAttribute('data-state', 'fresh');
  await expect(preview.getByTestId('facts-note')).toHaveText(
    'Checked just now with the system of record: nothing changed since it was proposed.',
  );
  await page.keyboard.press('a');
  await expect(page.getByTestId('queue-approve-dialog')).toBeHidden();
  await expect(page.getByTestId(`queue-result-${hold.id}`)).toHaveAttribute('data-outcome', 'done');
  await expect(page.getByTestId(`queue-result-${hold.id}`)).toContainText(/^✓ approved( · now executing)?/);
  await rejectAs(baseURL!, 'bob@acme.test', earlier, 'Fresh facts e2e clean-up');
});

test('when the system of record does not answer, the preview says "unavailable" and `a` stops at the dialog', async ({
  page,
  request,
  baseURL,
}) => {
  const agent = await ownAgent(baseURL!, 'fresh-facts');
  const earlier = await proposeHold(request, agent, { sku: 'filter-blue', quantity: 1 });
  const hold = await proposeHold(request, agent, { sku: 'filter-blue', quantity: 1 });
  // The demo systems cannot be slowed for reads: the server's own answer is turned into the one it gives on a timeout.
  await page.route('**/api/v1/proposals/*/recheck', async (route) => {
    const real = await route.fetch();
    const body = (await real.json()) as Record<string, unknown>;
    await route.fulfill({
      response: real,
      json: { ...body, state: 'unavailable', now: null, note: 'no answer in time' },
    });
  });
  await signIn(page, 'alice@acme.test', `/?sort=newest&action=hold_stock&agent=${agent.name}`);
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');
  await expect(row(page, hold.id)).toHaveAttribute('data-focused', 'true');
  const preview = page.getByTestId('queue-preview-facts');
  await expect(preview).toHaveAttribute('data-state', 'unavailable');
  await expect(preview.getByTestId('facts-now')).toHaveText('unavailable');
  await page.keyboard.press('a');
  const dialog = page.getByTestId('queue-approve-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('facts-note')).toHaveText(
    'The system of record did not answer in time: the facts could not be checked just now.',
  );
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  for (const proposal of [earlier, hold])
    await rejectAs(baseURL!, 'bob@acme.test', proposal, 'Fresh facts e2e clean-up');
});

test('the re-check is any member’s to ask, and another tenant’s proposal is not found', async ({
  request,
  baseURL,
}) => {
  const hold = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  const recheck = async (email: string, id: string) => {
    const session = await apiSession(baseURL!, email);
    const response = await session.post(`/api/v1/proposals/${id}/recheck`, {
      headers: { origin: baseURL!, 'content-type': 'application/json' },
      data: {},
    });
    const body = (await response.json()) as { state?: string; error?: { code: string } };
    await session.dispose();
    return { status: response.status(), body };
  };
  // A viewer may look; what they get is the facts, at proposal and now.
  const asViewer = await recheck('dave@acme.test', hold.id);
  expect(asViewer.status).toBe(200);
  expect(asViewer.body.state).toBe('fresh');
  // Erin is in globex: an acme proposal does not exist for her.
  expect(await recheck('erin@globex.test', hold.id)).toMatchObject({
    status: 404,
    body: { error: { code: 'not_found' } },
  });
  await rejectAs(baseURL!, 'bob@acme.test', hold, 'Fresh facts e2e clean-up');
});
