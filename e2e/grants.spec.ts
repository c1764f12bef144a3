import path from 'node:path';
import { type APIRequestContext, expect, test } from '@playwright/test';
import { violations } from './axe';
import { apiSession, proposeHold, signInWithForm } from './support';

/**
 * Standing grants through the dashboard (docs/grants.md): alice approves a hold with "Also approve
 * proposals like this for a while"; the agent's next hold on the same SKU is approved under her
 * grant with nobody deciding; dave (viewer) sees it on History → Grants without Revoke; alice
 * revokes it and the next hold waits again. The grant never outlives the spec, and the proposals
 * it leaves waiting are rejected, so later specs find the SKU as before.
 */

const dir = process.env.SCREENSHOT_DIR ?? 'test-results/screenshots';
const SKU = 'filter-gray';

async function reject(api: APIRequestContext, baseURL: string, proposal: { id: string; payloadHash: string }) {
  const response = await api.post(`/api/v1/proposals/${proposal.id}/decisions`, {
    headers: { origin: baseURL },
    data: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'Grants spec: tidying up' },
  });
  expect(response.status()).toBe(200);
}

// Whatever failed, no grant outlives this file: later specs propose holds and refunds a live grant would approve.
test.afterEach(async ({ baseURL }) => {
  const carol = await apiSession(baseURL!, 'carol@acme.test');
  const { grants } = (await (await carol.get('/api/v1/grants?state=active')).json()) as { grants: { id: string }[] };
  for (const grant of grants)
    expect(
      (
        await carol.post(`/api/v1/grants/${grant.id}/revoke`, {
          headers: { origin: baseURL! },
          data: { reason: 'Grants spec: clean-up' },
        })
      ).status(),
    ).toBe(200);
  await carol.dispose();
});

test('a grant from alice’s approval approves the next hold on the SKU; dave sees it without Revoke; alice revokes it and the next hold waits for a person', async ({
  page,
  request,
  baseURL,
  browser,
}) => {
  test.setTimeout(180_000); // two browsers, axe twice and four screenshots on a shared two-core machine
  const bob = await apiSession(baseURL!, 'bob@acme.test');
  // An earlier proposal on the SKU, so the next carries no "first use" flag (a grant covers no flagged proposal).
  await reject(bob, baseURL!, await proposeHold(request, 'acme', { sku: SKU, quantity: 1 }));
  const source = await proposeHold(request, 'acme', { sku: SKU, quantity: 1 });

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/proposals/${source.id}`);
  await signInWithForm(page, 'alice@acme.test');
  await page.getByTestId('approve').click();
  const confirm = page.getByRole('group', { name: 'Confirm approval' });
  await expect(confirm.getByTestId('grant-terms')).toHaveCount(0);
  await confirm.getByLabel('Also approve proposals like this for a while').check();
  await confirm.getByLabel('Duration').selectOption({ label: '30 min' });
  await confirm.getByLabel('At most (proposals)').fill('3');
  await expect(confirm.getByLabel(`Only this resource (sku:${SKU})`)).toBeChecked();
  await confirm.getByLabel('Reason (required)').fill('Restock week: filter-gray holds are routine');
  expect.soft(await violations(page), 'approve confirmation with the grant section').toEqual([]);
  for (const [name, width] of [
    ['', 1440],
    ['-phone', 390],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    await expect(confirm.getByTestId('grant-terms')).toBeVisible();
    await page.screenshot({ path: path.join(dir, `proposal-grant-offer${name}.png`), fullPage: width === 1440 });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await confirm.getByTestId('confirm-approve').click();

  const made = page.getByTestId('grant-made');
  await expect(made).toContainText('up to 3 proposals like this are approved in your name until');
  const grantId = (await made.getAttribute('data-grant-id'))!;
  expect(grantId).toMatch(/^g_/);
  await expect(page.getByTestId('decision-outcome')).toContainText('Approved by Alice');

  const alice = await apiSession(baseURL!, 'alice@acme.test');
  try {
    const covered = await proposeHold(request, 'acme', { sku: SKU, quantity: 1 });
    expect(covered.status).toBe('approved');
    await page.goto(`/proposals/${covered.id}`);
    await expect(page.getByTestId('decision-outcome')).toContainText(`Approved under grant ${grantId} from Alice`);
    await expect(page.getByTestId('approve')).toHaveCount(0);
    await page.goto('/history');
    await expect(
      page
        .locator(`[data-testid="history-decision"][data-proposal-id="${covered.id}"]`)
        .getByTestId('history-decision-outcome'),
    ).toHaveText(`Approved under grant ${grantId} from Alice`);

    // Every member sees the grant; a viewer is offered no Revoke.
    const dave = await browser.newPage({ baseURL });
    await dave.goto('/history/grants');
    await signInWithForm(dave, 'dave@acme.test');
    const daveRow = dave.locator(`[data-testid="grant-row"][data-grant-id="${grantId}"]`);
    await expect(daveRow.getByTestId('grant-state')).toHaveText('active');
    await expect(daveRow.getByTestId('grant-granter')).toHaveText('Alice');
    await expect(daveRow.getByTestId('grant-used')).toHaveText('1 of 3');
    await expect(daveRow.getByTestId('grant-resource')).toContainText(`on sku:${SKU}`);
    await expect(daveRow.getByTestId('grant-reason-text')).toHaveText('Restock week: filter-gray holds are routine');
    await expect(daveRow.getByTestId('grant-proposal-link')).toHaveAttribute('href', `/proposals/${source.id}`);
    await expect(daveRow.getByTestId('grant-revoke')).toHaveCount(0);
    await dave.close();

    await page.goto('/history/grants?state=active');
    await expect(page.getByTestId('history-tab-grants')).toHaveAttribute('aria-current', 'page');
    await expect(page.getByTestId('grants-active-only')).toHaveAttribute('aria-current', 'page');
    const row = page.locator(`[data-testid="grant-row"][data-grant-id="${grantId}"]`);
    await expect(row.getByTestId('grant-revoke')).toBeVisible();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect.soft(await violations(page), `History → Grants (${scheme})`).toEqual([]);
      for (const [name, width] of [
        ['', 1440],
        ['-phone', 390],
      ] as const) {
        await page.setViewportSize({ width, height: 900 });
        await expect(row.getByTestId('grant-state')).toBeVisible();
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow).toBeLessThanOrEqual(0);
        await page.screenshot({ path: path.join(dir, `history-grants${name}-${scheme}.png`), fullPage: true });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });

    await row.getByTestId('grant-revoke').click();
    const dialog = page.getByRole('dialog', { name: `Revoke grant ${grantId}?` });
    await expect(dialog).toContainText(`hold_stock proposals of`);
    await dialog.getByLabel('Reason (optional)').fill('Restock is over');
    await dialog.getByTestId('grant-revoke-confirm').click();
    await expect(dialog).toBeHidden();
    // No longer active: gone from this view.
    await expect(row).toHaveCount(0);
    await page.goto('/history/grants');
    await expect(row.getByTestId('grant-state')).toHaveText('revoked');
    await expect(row.getByTestId('grant-end-note')).toHaveText('“Restock is over”');
    await expect(row.getByTestId('grant-ended-by')).toHaveText('Alice');
    await expect(row.getByTestId('grant-revoke')).toHaveCount(0);
  } finally {
    // Whatever failed above, the grant ends here: later specs propose holds on this SKU.
    const ended = await alice.post(`/api/v1/grants/${grantId}/revoke`, { headers: { origin: baseURL! }, data: {} });
    expect([200, 409]).toContain(ended.status());
  }

  const third = await proposeHold(request, 'acme', { sku: SKU, quantity: 1 });
  expect(third.status).toBe('pending_approval');
  await page.goto(`/proposals/${third.id}`);
  await expect(page.getByTestId('status-chip')).toHaveText('pending approval');
  await expect(page.getByTestId('approval-progress')).toHaveText('0 of 1 approval');
  await reject(bob, baseURL!, third);
});
