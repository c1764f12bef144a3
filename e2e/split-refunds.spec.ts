import { expect, test } from '@playwright/test';
import { agentKey, proposeRefund, signInWithForm } from './support';

type Detail = {
  routing: { approvals: number; aggregate?: { priorCount: number; total: number } };
  routingContext: string | null;
};

test('a refund split on one order shows the earlier slices, and needs two approvers once the total passes 100.00', async ({
  page,
  request,
}) => {
  // Other specs may have refunded on ord_1843 today too: they count, so the numbers are read back.
  const slices = [];
  for (const part of [1, 2, 3]) {
    slices.push(
      await proposeRefund(request, {
        orderId: 'ord_1843',
        amountMinor: 4000,
        currency: 'EUR',
        reason: `Split refund, part ${part} of 3`,
      }),
    );
  }
  const last = slices[2]!;
  const response = await request.get(`/api/v1/proposals/${last.id}`, {
    headers: { authorization: `Bearer ${agentKey('acme')}` },
  });
  expect(response.status()).toBe(200);
  const detail = (await response.json()) as Detail;
  const aggregate = detail.routing.aggregate!;
  expect(aggregate.priorCount).toBeGreaterThanOrEqual(2);
  expect(aggregate.total).toBeGreaterThanOrEqual(12000);
  expect(detail.routing.approvals).toBe(2);
  const sentence = `With ${aggregate.priorCount} earlier refunds on ord_1843 in the last 24 h: ${(aggregate.total / 100).toFixed(2)} EUR in all`;
  expect(detail.routingContext).toBe(sentence);

  await page.goto(`/proposals/${last.id}`);
  await signInWithForm(page, 'alice@acme.test');
  await expect(page).toHaveURL(new RegExp(`/proposals/${last.id}$`));
  await expect(page.getByTestId('routing-context')).toHaveText(sentence);
  await expect(page.getByTestId('approval-progress')).toHaveText('0 of 2 approvals');
});
