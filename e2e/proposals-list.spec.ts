import { type APIRequestContext, expect, test } from '@playwright/test';
import { apiSession, proposeHold, proposeRefund, signInWithForm } from './support';

async function reject(
  api: APIRequestContext,
  baseURL: string,
  proposal: { id: string; payloadHash: string },
  reason: string,
) {
  const response = await api.post(`/api/v1/proposals/${proposal.id}/decisions`, {
    headers: { origin: baseURL, 'content-type': 'application/json' },
    data: { decision: 'reject', payloadHash: proposal.payloadHash, reason },
  });
  expect(response.status()).toBeLessThan(300);
}

test('the Proposals list shows every proposal, filters by status and finds by order id, agent and decider', async ({
  page,
  request,
  baseURL,
}) => {
  const refund = await proposeRefund(request, {
    orderId: 'ord_1842',
    amountMinor: 101,
    currency: 'USD',
    reason: 'Listed refund',
  });
  const hold = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 });
  const bob = await apiSession(baseURL!, 'bob@acme.test');
  await reject(bob, baseURL!, hold, 'Not needed after all');

  await page.goto('/proposals');
  await signInWithForm(page, 'alice@acme.test');
  await expect(page).toHaveURL(/\/proposals$/);
  await expect(page.getByTestId('nav-proposals')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('nav-queue')).not.toHaveAttribute('aria-current', 'page');
  const row = (id: string) => page.locator(`[data-testid="proposal-list-row"][data-proposal-id="${id}"]`);
  // Newest first: the hold came last.
  await expect(page.getByTestId('proposal-list-row').first()).toHaveAttribute('data-proposal-id', hold.id);
  await expect(row(refund.id).getByTestId('status-chip')).toHaveText('pending approval');

  // A status filter, through the form, into the URL.
  await page.getByTestId('proposal-list-status').selectOption('rejected');
  await page.getByTestId('proposal-list-apply').click();
  await expect(page).toHaveURL(/status=rejected/);
  await expect(row(hold.id).getByTestId('proposal-list-reason')).toHaveText('Not needed after all');
  await expect(row(hold.id).getByTestId('proposal-list-deciders')).toHaveText('Bob rejected');
  await expect(row(refund.id)).toHaveCount(0);
  for (const status of await page
    .getByTestId('proposal-list-row')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status'))))
    expect(status).toBe('rejected');

  // Search: an order id, an agent, a decider, and a term that names nothing.
  for (const [q, kind, words] of [
    ['ord_1842', 'resource', 'Proposals on order:ord_1842'],
    ['acme-support-bot', 'agent', 'Proposals by the agent acme-support-bot'],
    ['bob@acme.test', 'decider', 'Proposals decided by Bob'],
  ] as const) {
    await page.goto(`/proposals?q=${encodeURIComponent(q)}`);
    await expect(page.getByTestId('proposal-list-target')).toHaveAttribute('data-kind', kind);
    await expect(page.getByTestId('proposal-list-target')).toHaveText(words);
    await expect(page.getByTestId('proposal-list-q')).toHaveValue(q);
  }
  await page.goto('/proposals?q=ord_1842');
  await expect(row(refund.id)).toBeVisible();
  await expect(row(hold.id)).toHaveCount(0);
  await page.goto('/proposals?q=Bob&status=rejected');
  await expect(row(hold.id)).toBeVisible();
  await page.getByTestId('proposal-list-q').fill('ord_nothing');
  await page.getByTestId('proposal-list-apply').click();
  await expect(page.getByTestId('proposal-list-target')).toContainText('Nothing here is called “ord_nothing”');
  await expect(page.getByTestId('proposal-list-row')).toHaveCount(0);

  // Bad filters in the URL fall back instead of failing; a row links to its proposal.
  await page.goto('/proposals?status=bogus&cursor=nonsense');
  await expect(page.getByTestId('proposal-list-status')).toHaveValue('all');
  await row(refund.id).getByTestId('proposal-list-link').click();
  await expect(page).toHaveURL(new RegExp(`/proposals/${refund.id}$`));

  // Leave the demo as it was: the refund's claim on ord_1842 ends.
  await reject(bob, baseURL!, refund, 'e2e: list check done');
  await bob.dispose();
});

test('the Proposals list pages with a cursor, older rows after newer ones without repeats', async ({
  page,
  request,
  baseURL,
}) => {
  // More than a page (25) of one view, made here so the walk does not depend on other specs.
  const holds = [];
  for (let i = 0; i < 27; i++) holds.push(await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 }));
  await page.goto('/proposals?q=filter-gray&status=pending_approval');
  await signInWithForm(page, 'alice@acme.test');
  const ids = async () =>
    page.getByTestId('proposal-list-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-proposal-id')));
  await expect(page.getByTestId('proposal-list-row')).toHaveCount(25);
  const first = await ids();
  expect(first).toEqual(
    holds
      .slice(2)
      .map((h) => h.id)
      .reverse(),
  );
  await page.getByTestId('proposal-list-older').click();
  await expect(page).toHaveURL(/cursor=/);
  await expect(page.getByTestId('proposal-list-newest')).toBeVisible();
  const second = await ids();
  expect(second.slice(0, 2)).toEqual([holds[1]!.id, holds[0]!.id]);
  expect(second.filter((id) => first.includes(id))).toEqual([]);

  // Leave the demo as it was.
  const bob = await apiSession(baseURL!, 'bob@acme.test');
  for (const hold of holds) await reject(bob, baseURL!, hold, 'e2e: paging check done');
  await bob.dispose();
});
