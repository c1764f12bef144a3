import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { agentKey, apiSession, proposeHold, proposeRefund, signInWithForm, uniqueRequestId } from './support';

// The proposal page made fast (issue 13): keys, approve & next, the phone's action bar, the tab
// title, other proposals on the resource, a session that ended, the skip link.

async function openAs(page: Page, proposalId: string, email: string) {
  await page.goto(`/proposals/${proposalId}`);
  await signInWithForm(page, email);
  await expect(page).toHaveURL(new RegExp(`/proposals/${proposalId}$`));
  await expect(page.getByTestId('proposal-keys')).toHaveAttribute('data-keys-ready', 'true');
}

/** Leaves acme as it was: rejects what the test left pending (as bob, who may reject anything). */
async function rejectPending(baseURL: string, ids: string[]) {
  const bob = await apiSession(baseURL, 'bob@acme.test');
  for (const id of ids) {
    const detail = (await (await bob.get(`/api/v1/proposals/${id}`)).json()) as { status: string; payloadHash: string };
    if (detail.status !== 'pending_approval') continue;
    const response = await bob.post(`/api/v1/proposals/${id}/decisions`, {
      headers: { origin: baseURL, 'content-type': 'application/json' },
      data: { decision: 'reject', payloadHash: detail.payloadHash, reason: 'e2e clean-up' },
    });
    expect(response.status()).toBe(200);
  }
  await bob.dispose();
}

async function proposeGlobexRefund(api: APIRequestContext) {
  const response = await api.post('/api/v1/proposals', {
    headers: { authorization: `Bearer ${agentKey('globex')}`, 'content-type': 'application/json' },
    data: {
      requestId: uniqueRequestId('globex-refund'),
      action: 'issue_refund',
      contractVersion: 1,
      args: { orderId: 'ord_9001', amountMinor: 100, currency: 'USD', reason: 'Goodwill' },
      evidenceRefs: [],
    },
  });
  expect(response.status()).toBe(201);
  return ((await response.json()) as { proposal: { id: string } }).proposal;
}

test('a, Enter approves and goes on to the next proposal waiting; j and k move in queue order; r and Escape', async ({
  page,
  request,
  baseURL,
}) => {
  // Created in this order, they expire in this order: each is the next of the one before.
  const first = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  const second = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 });
  const third = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  try {
    await openAs(page, first.id, 'alice@acme.test');
    await page.keyboard.press('a');
    const confirm = page.getByRole('group', { name: 'Confirm approval' });
    await expect(confirm).toContainText(first.payloadHash.slice(0, 15));
    await expect(page.getByTestId('confirm-approve-next')).toBeFocused();
    await expect(page.getByTestId('confirm-approve-next')).toHaveText('Approve & next');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`/proposals/${second.id}$`));
    await expect(page.getByTestId('status-chip')).toHaveText('pending approval');
    // The next page says the previous one was approved, in a toast with a link back to it; F8 reaches it.
    const flash = page.getByRole('region', { name: 'Notifications (F8)' }).getByTestId('flash');
    await expect(flash).toContainText('Approved: Hold 1 × filter-blue');
    await expect(flash.getByTestId('flash-link')).toHaveAttribute('href', `/proposals/${first.id}`);
    await expect(flash.getByTestId('flash-link')).toHaveText('View');
    await page.keyboard.press('F8');
    await page.keyboard.press('Tab');
    await expect(flash).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(flash.getByTestId('flash-link')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(flash).toHaveCount(0);
    await expect(page.getByTestId('proposal-keys')).toHaveAttribute('data-keys-ready', 'true');

    // r opens the rejection with the reason focused; typing there is not a key; Escape cancels.
    await page.keyboard.press('r');
    await expect(page.getByTestId('reject-reason')).toBeFocused();
    await page.keyboard.type('jk');
    await expect(page).toHaveURL(new RegExp(`/proposals/${second.id}$`));
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('reject-reason')).toHaveCount(0);

    // j to the next, k back; the first, approved now, is no longer waiting for alice.
    await page.keyboard.press('j');
    await expect(page).toHaveURL(new RegExp(`/proposals/${third.id}$`));
    await expect(page.getByTestId('proposal-keys')).toHaveAttribute('data-keys-ready', 'true');
    await page.keyboard.press('k');
    await expect(page).toHaveURL(new RegExp(`/proposals/${second.id}$`));
    await expect(page.getByTestId('proposal-keys')).toHaveAttribute('data-keys-ready', 'true');
    await page.keyboard.press('k');
    await expect(page).not.toHaveURL(new RegExp(`/proposals/${first.id}$`));

    await page.goto(`/proposals/${second.id}`);
    await expect(page.getByTestId('proposal-keys')).toHaveAttribute('data-keys-ready', 'true');
    await page.keyboard.press('?');
    await expect(page.getByTestId('shortcuts-help')).toContainText('next proposal waiting for you');
    // While the list is open, keys are the dialog's: j does not leave the page.
    await page.keyboard.press('j');
    await expect(page).toHaveURL(new RegExp(`/proposals/${second.id}$`));
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('shortcuts-help')).toBeHidden();
  } finally {
    await rejectPending(baseURL!, [first.id, second.id, third.id]);
  }
});

test('approving the last proposal waiting goes back to the queue and says so; other proposals on the resource are listed', async ({
  page,
  request,
}) => {
  const refund = await proposeGlobexRefund(request);
  await openAs(page, refund.id, 'erin@globex.test');
  // Nothing else was ever proposed on ord_9001.
  await expect(page.getByTestId('resource-history-empty')).toHaveText('No other proposals on ord_9001.');
  await expect(page.getByTestId('confirm-approve-next')).toHaveCount(0);
  await page.getByTestId('approve').click();
  await expect(page.getByTestId('confirm-approve-next')).toHaveText('Approve & back to the queue');
  await page.getByTestId('confirm-approve-next').click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId('flash')).toContainText('Nothing else is waiting for you.');

  // A second refund on the same order lists the first, with its status.
  const second = await proposeGlobexRefund(request);
  await page.goto(`/proposals/${second.id}`);
  const item = page.locator(`[data-testid="resource-history-item"][data-proposal-id="${refund.id}"]`);
  await expect(item).toContainText('Refund 1.00 USD on order ord_9001');
  await expect(item.getByTestId('resource-history-status')).toHaveText(/^(approved|executing|succeeded)$/);
  await item.getByTestId('resource-history-link').click();
  await expect(page).toHaveURL(new RegExp(`/proposals/${refund.id}$`));
  await expect(
    page
      .locator(`[data-testid="resource-history-item"][data-proposal-id="${second.id}"]`)
      .getByTestId('resource-history-status'),
  ).toHaveText('pending approval');

  // A finished execution never says when its command would have expired.
  await expect(page.getByTestId('execution-outcome')).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
  await expect(page.getByTestId('execution-command').locator('summary')).toContainText('· used');
  await expect(page.getByTestId('execution-command').locator('summary')).not.toContainText('expires');

  await page.goto(`/proposals/${second.id}`);
  await page.getByTestId('reject').click();
  await page.getByTestId('reject-reason').fill('e2e clean-up');
  await page.getByTestId('confirm-reject').click();
  await expect(page.getByTestId('status-chip')).toHaveText('rejected');
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the approve button is on screen without scrolling, and the bar covers nothing', async ({
    page,
    request,
    baseURL,
  }) => {
    const refund = await proposeRefund(
      request,
      { orderId: 'ord_1843', amountMinor: 1000, currency: 'EUR', reason: 'Damaged on arrival' },
      ['ticket_message_73'],
    );
    try {
      await openAs(page, refund.id, 'alice@acme.test');
      const approve = page.getByTestId('approve');
      await expect(approve).toContainText('10.00 EUR');
      await expect(approve).toBeInViewport({ ratio: 1 });
      expect(await page.evaluate(() => window.scrollY)).toBe(0);

      // At the end of the page, the last line sits above the bar.
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      const bar = await page.getByTestId('decision-bar').boundingBox();
      const last = await page.getByTestId('evidence-bundle').boundingBox();
      expect(last!.y + last!.height).toBeLessThanOrEqual(bar!.y);

      // The confirmation stays in the bar too.
      await approve.click();
      await expect(page.getByTestId('confirm-approve-next')).toBeInViewport({ ratio: 1 });
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
    } finally {
      await rejectPending(baseURL!, [refund.id]);
    }
  });
});

test.describe('in Berlin', () => {
  test.use({ timezoneId: 'Europe/Berlin' });

  test('the tab is titled with the summary (never another tenant’s), times are in the viewer’s zone, named once, and the timeline names people and agents', async ({
    page,
    request,
    baseURL,
  }) => {
    const hold = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 2 });
    const foreign = await proposeGlobexRefund(request);
    try {
      const alice = await apiSession(baseURL!, 'alice@acme.test');
      // Alice extends it (nothing runs; it stays pending for the clean-up's rejection).
      expect(
        (
          await alice.post(`/api/v1/proposals/${hold.id}/extend`, {
            headers: { origin: baseURL!, 'content-type': 'application/json' },
            data: {},
          })
        ).status(),
      ).toBe(200);
      await alice.dispose();
      await openAs(page, hold.id, 'bob@acme.test');
      // People by name (the id on hover), the agent as an agent, events in words.
      const timeline = page.getByTestId('proposal-history');
      await expect(timeline.locator('[data-type="proposal.created"]')).toContainText(
        'Proposed by agent acme-support-bot',
      );
      const extended = timeline.locator('[data-type="proposal.extended"]');
      await expect(extended).toContainText('Expiry extended by Alice');
      // The id is on hover (and on keyboard focus), in a tooltip.
      const actor = extended.getByTestId('proposal-history-actor');
      await expect(actor).toHaveAttribute('data-actor-id', /^usr_/);
      await actor.hover();
      await expect(page.getByRole('tooltip')).toHaveText(/^usr_/);
      await expect(timeline).not.toContainText('usr_');
      await expect(timeline).not.toContainText('proposal.');
      await expect(page).toHaveTitle(/^Hold 2 × filter-gray.* · Countersign$/);
      await expect(page.getByTestId('viewer-zone')).toContainText('Europe/Berlin');
      await expect(page.getByTestId('viewer-zone')).toHaveCount(1);
      const created = page.getByTestId('proposal-history').locator('time').first();
      const [iso, title, text] = await Promise.all([
        created.getAttribute('datetime'),
        created.getAttribute('title'),
        created.textContent(),
      ]);
      expect(title).toMatch(/ UTC$/);
      const berlin = new Intl.DateTimeFormat('en-US', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      }).format(new Date(iso!));
      expect(text).toBe(berlin);

      await page.goto(`/proposals/${foreign.id}`);
      await expect(page.getByTestId('not-found')).toBeVisible();
      expect(await page.title()).not.toContain('ord_9001');
    } finally {
      await rejectPending(baseURL!, [hold.id]);
      const erin = await apiSession(baseURL!, 'erin@globex.test');
      const detail = (await (await erin.get(`/api/v1/proposals/${foreign.id}`)).json()) as { payloadHash: string };
      await erin.post(`/api/v1/proposals/${foreign.id}/decisions`, {
        headers: { origin: baseURL!, 'content-type': 'application/json' },
        data: { decision: 'reject', payloadHash: detail.payloadHash, reason: 'e2e clean-up' },
      });
      await erin.dispose();
    }
  });
});

test('a decision after the session ended offers to sign in again, back to the same page, and disables the buttons', async ({
  page,
  context,
  request,
  baseURL,
}) => {
  const hold = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  try {
    await openAs(page, hold.id, 'alice@acme.test');
    await context.clearCookies();
    await page.getByTestId('approve').click();
    await page.getByTestId('confirm-approve').click();
    const alert = page.getByTestId('decision-alert');
    await expect(alert).toHaveAttribute('role', 'alert');
    await expect(alert).toContainText('Your session ended');
    await expect(page.getByTestId('confirm-approve')).toBeDisabled();
    await expect(page.getByTestId('confirm-approve-next')).toBeDisabled();
    await expect(page.getByTestId('extend')).toBeDisabled();
    await expect(page.getByTestId('sign-in-again')).toHaveAttribute(
      'href',
      `/signin?callbackUrl=${encodeURIComponent(`/proposals/${hold.id}`)}`,
    );

    await page.getByTestId('sign-in-again').click();
    await signInWithForm(page, 'alice@acme.test');
    await expect(page).toHaveURL(new RegExp(`/proposals/${hold.id}$`));
    await expect(page.getByTestId('approve')).toBeEnabled();
    await expect(page.getByTestId('status-chip')).toHaveText('pending approval');
  } finally {
    await rejectPending(baseURL!, [hold.id]);
  }
});

test('the first Tab reaches "Skip to main content", which moves focus to the page’s main part; sign-in errors are announced', async ({
  page,
  request,
  baseURL,
}) => {
  const hold = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 });
  try {
    await page.goto('/signin');
    await page.getByTestId('signin-email').fill('alice@acme.test');
    await page.getByTestId('signin-password').fill('not-the-password');
    await page.getByTestId('signin-submit').click();
    await expect(page.locator('[role="alert"]').filter({ has: page.getByTestId('signin-error') })).toHaveText(
      'That email and password do not match an account.',
    );

    await openAs(page, hold.id, 'alice@acme.test');
    await page.goto(`/proposals/${hold.id}`);
    await expect(page.getByTestId('proposal-keys')).toHaveAttribute('data-keys-ready', 'true');
    await page.keyboard.press('Tab');
    const skip = page.getByTestId('skip-link');
    await expect(skip).toBeFocused();
    await expect(skip).toHaveText('Skip to main content');
    await expect(skip).toBeInViewport();
    await page.keyboard.press('Enter');
    await expect(page.locator('main#main')).toBeFocused();
  } finally {
    await rejectPending(baseURL!, [hold.id]);
  }
});
