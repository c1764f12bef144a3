import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { proposeHold, proposeRefund, signInWithForm } from './support';

/** The demo's systems of record, in test mode, next to the server (playwright.config.ts). */
const systemsUrl = `http://127.0.0.1:${process.env.E2E_SYSTEMS_PORT ?? Number(process.env.E2E_PORT ?? 3210) + 2}`;

function paymentsCredential(): string {
  const file = path.join(process.env.E2E_DATA_DIR ?? '.data/e2e', 'secrets.json');
  const secrets = JSON.parse(fs.readFileSync(file, 'utf8')) as { scopeCredentials: { payments: string } };
  return secrets.scopeCredentials.payments;
}

async function openAs(page: Page, proposalId: string, email: string) {
  await page.goto(`/proposals/${proposalId}`);
  await signInWithForm(page, email);
  await expect(page).toHaveURL(new RegExp(`/proposals/${proposalId}$`));
}

test('a refund outside Countersign that the balance still covers does not make the proposal stale', async ({
  page,
  request,
}) => {
  const proposal = await proposeRefund(request, {
    orderId: 'ord_1842',
    amountMinor: 100,
    currency: 'USD',
    reason: 'Partial refund for a late parcel',
  });
  await openAs(page, proposal.id, 'alice@acme.test');
  await expect(page.getByTestId('status-chip')).toHaveText('pending approval');

  // Someone refunds 1.00 USD outside Countersign; the order still covers this 1.00 USD refund.
  const direct = await request.post(`${systemsUrl}/refunds`, {
    headers: { authorization: `Bearer ${paymentsCredential()}` },
    data: { orderId: 'ord_1842', amountMinor: 100, currency: 'USD', idempotencyKey: `e2e-moved-${Date.now()}` },
  });
  expect(direct.status()).toBeLessThan(300);

  await page.getByTestId('approve').click();
  await page.getByTestId('confirm-approve').click();
  await expect(page.getByTestId('status-chip')).not.toHaveText(/pending approval|stale/);
  await expect(page.locator('[data-testid="proposal-history-event"][data-type="proposal.approved"]')).toContainText(
    'Approved by',
  );
  await expect(page.locator('[data-testid="proposal-history-event"][data-type="proposal.stale"]')).toHaveCount(0);
});

test('an approver extends a proposal once', async ({ page, baseURL }) => {
  const proposal = await proposeHold(page.request, 'acme', { sku: 'filter-gray', quantity: 1 });
  await openAs(page, proposal.id, 'bob@acme.test');
  const countdown = page.getByTestId('countdown');
  await expect(countdown).toHaveText(/^expires in 2[34] h \d+ m$/);
  await expect(countdown).toHaveAttribute('title', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);

  await expect(page.getByTestId('extend')).toHaveText('Extend by 24 h…');
  // Extend asks first, saying the new expiry in the viewer's time; Cancel changes nothing.
  await page.getByTestId('extend').click();
  await expect(page.getByTestId('extend-confirm-group')).toContainText('Extend by 24 h, to');
  await page.getByTestId('extend-cancel').click();
  await expect(countdown).toHaveText(/^expires in 2[34] h \d+ m$/);
  await page.getByTestId('extend').click();
  const until = await page.getByTestId('extend-until').textContent();
  await page.getByTestId('extend-confirm').click();
  await expect(page.getByTestId('extended-note')).toHaveText(`Extended by Bob → now expires ${until}`);
  await expect(countdown).toHaveText(/^expires in (1 d 23 h|2 d 0 h)$/);
  await expect(page.getByTestId('extend')).toHaveCount(0);

  // A second extension is refused, also over the API.
  const again = await page.request.post(`/api/v1/proposals/${proposal.id}/extend`, {
    headers: { origin: baseURL!, 'content-type': 'application/json' },
    data: {},
  });
  expect(again.status()).toBe(409);
  expect(((await again.json()) as { error: { code: string } }).error.code).toBe('already_extended');
  await expect(page.locator('[data-testid="proposal-history-event"][data-type="proposal.extended"]')).toContainText(
    'Expiry extended by',
  );
});

test('two approvers in two browsers reach the quorum of a refund above 100.00', async ({ browser, request }) => {
  const proposal = await proposeRefund(request, {
    orderId: 'ord_1843',
    amountMinor: 15000,
    currency: 'EUR',
    reason: 'Whole order damaged',
  });
  const aliceContext = await browser.newContext();
  const bobContext = await browser.newContext();
  try {
    const alice = await aliceContext.newPage();
    const bob = await bobContext.newPage();
    await openAs(alice, proposal.id, 'alice@acme.test');
    await openAs(bob, proposal.id, 'bob@acme.test');
    await expect(alice.getByTestId('approval-progress')).toHaveText('0 of 2 approvals');

    await alice.getByTestId('approve').click();
    await expect(alice.getByRole('group', { name: 'Confirm approval' })).toContainText(
      proposal.payloadHash.slice(0, 15),
    );
    await alice.getByTestId('confirm-approve').click();
    await expect(alice.getByTestId('approval-progress')).toHaveText('1 of 2 approvals');
    await expect(alice.getByTestId('status-chip')).toHaveText('pending approval');
    await expect(alice.getByTestId('decision-state')).toContainText('waiting for another approver');

    await bob.reload();
    await expect(bob.getByTestId('approval-progress')).toHaveText('1 of 2 approvals');
    await bob.getByTestId('approve').click();
    await bob.getByTestId('confirm-approve').click();
    await expect(bob.getByTestId('status-chip')).toHaveText(/^(approved|executing|succeeded)$/);
    await expect(bob.getByTestId('decision-outcome')).toHaveText(/^Approved by Alice and Bob · \d{1,2}:\d\d( [AP]M)?$/);
    await expect(bob.getByTestId('decision-outcome-time')).toHaveAttribute(
      'title',
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
    );
    await expect(bob.getByTestId('decisions')).toHaveCount(0);

    await alice.reload();
    await expect(alice.getByTestId('decision-outcome')).toHaveText(
      /^Approved by Alice and Bob · \d{1,2}:\d\d( [AP]M)?$/,
    );
  } finally {
    await aliceContext.close();
    await bobContext.close();
  }
});
