import AxeBuilder from '@axe-core/playwright';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import {
  agentKey,
  apiSession,
  credentials,
  proposeRefund,
  refundDirectly,
  signInWithForm,
  uniqueRequestId,
} from './support';

/** Stale only when it matters; a change that still holds is shown; the agent can be asked to re-propose. */
type Order = { chargedMinor: number; refundedMinor: number };

const systemsUrl = () => credentials().systemsOfRecordUrl;

async function balanceOf(request: APIRequestContext, orderId: string): Promise<number> {
  const order = (await (await request.get(`${systemsUrl()}/orders/${orderId}`)).json()) as Order;
  return order.chargedMinor - order.refundedMinor;
}

/** The failed check, the drift note and the re-propose form stay axe-clean (serious or critical), light and dark. */
async function expectAxeClean(page: Page) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const { violations } = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    expect(
      violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      scheme,
    ).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

async function openAs(page: Page, proposalId: string, email: string) {
  await page.goto(`/proposals/${proposalId}`);
  await signInWithForm(page, email);
  await expect(page).toHaveURL(new RegExp(`/proposals/${proposalId}$`));
}

test('a refund the balance no longer covers goes stale: Meaning shows ✗ with old → new, and the agent can be asked to re-propose', async ({
  page,
  request,
  baseURL,
}) => {
  // globex's ord_9001 is this spec's own: no other spec refunds on it.
  const before = await balanceOf(request, 'ord_9001');
  const created = await request.post('/api/v1/proposals', {
    headers: { authorization: `Bearer ${agentKey('globex')}`, 'content-type': 'application/json' },
    data: {
      requestId: uniqueRequestId('stale'),
      action: 'issue_refund',
      contractVersion: 1,
      args: { orderId: 'ord_9001', amountMinor: 1000, currency: 'USD', reason: 'Stale e2e' },
      evidenceRefs: [],
    },
  });
  expect(created.status()).toBe(201);
  const proposal = ((await created.json()) as { proposal: { id: string } }).proposal;
  await openAs(page, proposal.id, 'erin@globex.test');
  await expect(page.getByTestId('gate-meaning')).toHaveAttribute('data-ok', 'true');

  // Only 5.00 USD is left after a refund outside Countersign: this 10.00 USD refund can no longer hold.
  await refundDirectly(request, 'ord_9001', before - 500);
  await page.getByTestId('approve').click();
  await page.getByTestId('confirm-approve').click();
  await expect(page.getByTestId('status-chip')).toHaveText('stale');

  const money = (minor: number) => `${(minor / 100).toFixed(2)} USD`;
  const meaning = page.getByTestId('gate-meaning');
  await expect(meaning).toHaveAttribute('data-ok', 'false');
  await expect(meaning.getByTestId('gate-verdict')).toContainText('failed (exceeds_refundable_balance)');
  await expect(meaning).toContainText(
    `order balance changed from ${money(before)} to 5.00 USD since it was proposed; at most 5.00 USD can be refunded`,
  );
  await expect(page.getByTestId('gate-authority')).toHaveAttribute('data-ok', 'true');

  await page.getByTestId('repropose-open').click();
  await expectAxeClean(page);
  await page.getByTestId('repropose-note').fill('Only 5.00 USD is left on the order.');
  await page.getByTestId('repropose-send').click();
  await expect(page.getByTestId('repropose-requested')).toContainText('The agent was asked to propose this again');
  await page.reload();
  await expect(page.getByTestId('repropose-requested')).toBeVisible();
  await expect(page.getByTestId('repropose-open')).toHaveCount(0);

  // The agent reads it on its proposal; a second ask is refused.
  const asAgent = (await (
    await request.get(`/api/v1/proposals/${proposal.id}`, {
      headers: { authorization: `Bearer ${agentKey('globex')}` },
    })
  ).json()) as { reproposal: unknown };
  expect(asAgent.reproposal).toMatchObject({
    reason: expect.stringContaining('at most 5.00 USD can be refunded'),
    note: 'Only 5.00 USD is left on the order.',
  });
  const erin = await apiSession(baseURL!, 'erin@globex.test');
  const again = await erin.post(`/api/v1/proposals/${proposal.id}/repropose-request`, {
    headers: { origin: baseURL!, 'content-type': 'application/json' },
    data: {},
  });
  expect(again.status()).toBe(409);
  expect(((await again.json()) as { error: { code: string } }).error.code).toBe('already_requested');
  await erin.dispose();
});

test('after a sibling refund executes, one the balance still covers is marked "changed since proposed" without anyone clicking', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const first = await proposeRefund(request, {
    orderId: 'ord_1843',
    amountMinor: 100,
    currency: 'EUR',
    reason: 'Stale e2e: first slice',
  });
  const sibling = await proposeRefund(request, {
    orderId: 'ord_1843',
    amountMinor: 100,
    currency: 'EUR',
    reason: 'Stale e2e: second slice',
  });
  // Other specs' refunds on ord_1843 today may make the routing ask for a second approver.
  for (const email of ['alice@acme.test', 'bob@acme.test']) {
    const approver = await apiSession(baseURL!, email);
    const decided = await approver.post(`/api/v1/proposals/${first.id}/decisions`, {
      headers: { origin: baseURL! },
      data: { decision: 'approve', payloadHash: first.payloadHash },
    });
    expect(decided.status()).toBe(200);
    const { status } = (await decided.json()) as { status: string };
    await approver.dispose();
    if (status !== 'pending_approval') break;
  }
  await openAs(page, first.id, 'alice@acme.test');
  await expect(page.getByTestId('status-chip')).toHaveText('succeeded', { timeout: 20_000 });

  // The worker re-checks the sibling once the execution's outcome lands (every 5 s).
  await page.goto(`/proposals/${sibling.id}`);
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('drift-note')).toContainText(
      /^Changed since proposed: order balance changed from \d+\.\d\d EUR to \d+\.\d\d EUR since it was proposed/,
      { timeout: 1_000 },
    );
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId('status-chip')).toHaveText('pending approval');
  await expect(page.getByTestId('repropose-open')).toBeVisible();
  await expectAxeClean(page);

  // Restore: the sibling ends rejected, so no open claim is left on ord_1843 for other specs.
  await page.getByTestId('reject').click();
  await page.getByTestId('reject-reason').fill('Stale e2e clean-up');
  await page.getByTestId('confirm-reject').click();
  await expect(page.getByTestId('status-chip')).toHaveText('rejected');
});
