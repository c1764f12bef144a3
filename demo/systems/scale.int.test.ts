import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SystemsOfRecord, startSystemsOfRecord } from './server';
import { call, type ErrorBody, holdBody, refundBody, TEST_CREDENTIALS } from './testing';

/** The bench world over real HTTP (issue 14): a service at scale 5 serves five more of each record. */

let service: SystemsOfRecord;
beforeAll(async () => {
  service = await startSystemsOfRecord({ port: 0, credentials: TEST_CREDENTIALS, scale: 5 });
});
afterAll(async () => {
  await service.close();
});

describe('a systems server at scale 5', () => {
  it.each([
    [
      '/orders/ord_s000005',
      { id: 'ord_s000005', tenant: 'acme', currency: 'USD', chargedMinor: 100000, refundedMinor: 0, refunds: [] },
    ],
    ['/skus/sku-000005', { sku: 'sku-000005', tenant: 'acme', warehouse: 'north', maxHold: 10, holds: [] }],
    [
      '/evidence/ticket_s000005',
      { id: 'ticket_s000005', tenant: 'acme', kind: 'support_ticket', text: expect.any(String) },
    ],
    [
      '/orders/ord_1842',
      { id: 'ord_1842', tenant: 'acme', currency: 'USD', chargedMinor: 4999, refundedMinor: 0, refunds: [] },
    ],
  ])('serves GET %s', async (path, expected) => {
    const reply = await call(service.url, 'GET', path);
    expect(reply.status).toBe(200);
    expect(reply.json).toStrictEqual(expected);
  });

  it.each([
    ['/orders/ord_s000006', 'unknown order'],
    ['/skus/sku-000006', 'unknown SKU'],
    ['/evidence/ticket_s000006', 'unknown ticket'],
  ])('refuses GET %s (%s)', async (path) => {
    const reply = await call<ErrorBody>(service.url, 'GET', path);
    expect(reply.status).toBe(404);
  });

  it('writes against scaled records and shows them in their reads and on the page', async () => {
    const refund = refundBody({ orderId: 'ord_s000003', amountMinor: 250, idempotencyKey: 'scale-refund-1' });
    expect(
      (await call(service.url, 'POST', '/refunds', { auth: TEST_CREDENTIALS.payments, body: refund })).status,
    ).toBe(201);
    const hold = holdBody({ sku: 'sku-000004', quantity: 10, idempotencyKey: 'scale-hold-1' });
    expect((await call(service.url, 'POST', '/holds', { auth: TEST_CREDENTIALS.inventory, body: hold })).status).toBe(
      201,
    );
    const tooMany = holdBody({ sku: 'sku-000004', quantity: 11, idempotencyKey: 'scale-hold-2' });
    expect(
      (await call<ErrorBody>(service.url, 'POST', '/holds', { auth: TEST_CREDENTIALS.inventory, body: tooMany })).json
        .error.code,
    ).toBe('hold_limit');

    expect((await call(service.url, 'GET', '/orders/ord_s000003')).json).toMatchObject({
      refundedMinor: 250,
      refunds: [{ idempotencyKey: 'scale-refund-1' }],
    });
    expect((await call(service.url, 'GET', '/skus/sku-000004')).json).toMatchObject({
      holds: [{ quantity: 10, idempotencyKey: 'scale-hold-1' }],
    });
    const page = (await call(service.url, 'GET', '/')).text;
    expect(page).toContain('ord_s000003');
    expect(page).toContain('sku-000004');
    expect(page).not.toContain('ord_s000001');
  });
});
