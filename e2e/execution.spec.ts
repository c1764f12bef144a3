import { expect, test } from '@playwright/test';
import { agentKey, credentials, proposeRefund, signInWithForm } from './support';

type Order = { id: string; refunds: { id: string; amountMinor: number; idempotencyKey: string }[] };

test('an approved refund is executed by the signed command: the page shows the receipt, the system of record the refund', async ({
  page,
  request,
}) => {
  const proposal = await proposeRefund(request, {
    orderId: 'ord_1842',
    amountMinor: 250,
    currency: 'USD',
    reason: 'Partial refund: one filter arrived cracked',
  });

  await page.goto(`/proposals/${proposal.id}`);
  await signInWithForm(page, 'alice@acme.test');
  await expect(page).toHaveURL(new RegExp(`/proposals/${proposal.id}$`));
  await page.getByTestId('approve').click();
  await page.getByTestId('confirm-approve').click();

  // The worker delivers the command, the executor refunds and validates the receipt; the page follows.
  const outcome = page.getByTestId('execution-outcome');
  await expect(outcome).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
  await expect(outcome).toContainText(/Executed — refund re_\w+ \(receipt validated\)/);
  await expect(page.getByTestId('status-chip')).toHaveText('succeeded');
  const receiptId = (await page.getByTestId('execution-receipt-id').textContent())?.trim() ?? '';
  expect(receiptId).toMatch(/^re_/);

  // Operators see the signed command: its id, its claims and the JWS.
  await page.getByTestId('execution-command').locator('summary').click();
  const commandId = (await page.getByTestId('execution-command-id').textContent())?.trim() ?? '';
  const claims = JSON.parse((await page.getByTestId('execution-command-claims').textContent()) ?? '{}') as Record<
    string,
    unknown
  >;
  expect(claims).toMatchObject({
    jti: commandId,
    sub: proposal.id,
    aud: 'executor:payments',
    payloadHash: proposal.payloadHash,
    idempotencyKey: `cs.${proposal.id}`,
  });
  await expect(page.getByTestId('execution-jws')).toContainText(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);

  // The system of record has exactly this refund.
  const order = (await (await request.get(`${credentials().systemsOfRecordUrl}/orders/ord_1842`)).json()) as Order;
  const refunds = order.refunds.filter((r) => r.idempotencyKey === `cs.${proposal.id}`);
  expect(refunds).toEqual([expect.objectContaining({ id: receiptId, amountMinor: 250 })]);

  // The agent sees the outcome through its API; never the command.
  const api = await request.get(`/api/v1/proposals/${proposal.id}`, {
    headers: { authorization: `Bearer ${agentKey('acme')}` },
  });
  const detail = (await api.json()) as {
    status: string;
    execution: { status: string; receipt: { id: string } } | null;
    command?: unknown;
  };
  expect(detail.status).toBe('succeeded');
  expect(detail.execution).toMatchObject({ status: 'succeeded', receipt: { id: receiptId } });
  expect(detail.command).toBeUndefined();
});

test('a refund whose answer is lost shows "Outcome unknown — checking", then reconciles to the one refund the system committed', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const systemsUrl = credentials().systemsOfRecordUrl;
  const proposal = await proposeRefund(request, {
    orderId: 'ord_1842',
    amountMinor: 150,
    currency: 'USD',
    reason: 'Partial refund: late delivery',
  });
  // The payments system commits the next refund, then never answers.
  const fault = await request.post(`${systemsUrl}/__faults`, {
    data: { target: 'refunds', mode: 'timeout_after_commit' },
  });
  expect(fault.ok()).toBe(true);

  await page.goto(`/proposals/${proposal.id}`);
  await signInWithForm(page, 'alice@acme.test');
  await page.getByTestId('approve').click();
  await page.getByTestId('confirm-approve').click();

  const outcome = page.getByTestId('execution-outcome');
  await expect(outcome).toHaveAttribute('data-status', 'outcome_unknown', { timeout: 20_000 });
  await expect(outcome).toContainText('Outcome unknown — checking with payments (attempt');
  await expect(page.getByTestId('status-chip')).toHaveText('outcome unknown · checking');
  await expect(page.getByTestId('execution-next-check')).toContainText(/next (in \d+ s|now)/);
  await expect(outcome).not.toContainText(/done|Executed/);

  // Reconciliation asks payments by idempotency key (first after 30 s) and finds the committed refund.
  await expect(outcome).toHaveAttribute('data-status', 'succeeded', { timeout: 75_000 });
  await expect(outcome).toContainText(/Executed — refund re_\w+ \(receipt validated\)/);
  await expect(page.getByTestId('execution-check').first()).toHaveAttribute('data-outcome', 'confirmed');
  const order = (await (await request.get(`${systemsUrl}/orders/ord_1842`)).json()) as Order;
  expect(order.refunds.filter((r) => r.idempotencyKey === `cs.${proposal.id}`)).toHaveLength(1);
});
