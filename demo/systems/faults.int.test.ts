import { describe, expect, it, vi } from 'vitest';
import { startSystemsOfRecord } from './server';
import { call, type ErrorBody, holdBody, refundBody, setupTestService, TEST_CREDENTIALS } from './testing';

/** Fault injection (test mode only) and /__reset, over real HTTP. */

const { payments: PAYMENTS, inventory: INVENTORY } = TEST_CREDENTIALS;
const service = setupTestService();

const TARGETS = [
  {
    target: 'refunds',
    auth: PAYMENTS,
    body: refundBody({ idempotencyKey: 'fault-key' }),
    resourceField: 'orderId',
    resource: 'ord_1842',
    read: '/orders/ord_1842',
  },
  {
    target: 'holds',
    auth: INVENTORY,
    body: holdBody({ idempotencyKey: 'fault-key' }),
    resourceField: 'sku',
    resource: 'filter-blue',
    read: '/skus/filter-blue',
  },
] as const;

type Target = (typeof TARGETS)[number];

const queue = async (target: string, mode: string, times?: number) => {
  const reply = await call(service.url, 'POST', '/__faults', { body: { target, mode, ...(times ? { times } : {}) } });
  expect(reply.status).toBe(200);
  return reply;
};

const write = (spec: Target, signal?: AbortSignal) =>
  call(service.url, 'POST', `/${spec.target}`, { auth: spec.auth, body: spec.body, signal });

const lookup = (spec: Target) =>
  call(service.url, 'GET', `/${spec.target}?idempotencyKey=fault-key`, { auth: spec.auth });

/** How many records the read shows (refunds of the order, holds of the SKU). */
async function effects(spec: Target): Promise<number> {
  const reply = await call<{ refunds?: unknown[]; holds?: unknown[] }>(service.url, 'GET', spec.read);
  return (reply.json.refunds ?? reply.json.holds ?? []).length;
}

describe.each(TARGETS)('faults on $target', (spec) => {
  it('timeout_after_commit: commits, never answers; the look-up finds the record and a retry replays it', async () => {
    await queue(spec.target, 'timeout_after_commit');
    const error = await write(spec, AbortSignal.timeout(300)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('TimeoutError');

    const found = await lookup(spec);
    expect(found.status).toBe(200);
    expect(found.json).toMatchObject({ [spec.resourceField]: spec.resource, idempotencyKey: 'fault-key' });
    expect(await effects(spec)).toBe(1);

    const retry = await write(spec);
    expect(retry.status).toBe(200);
    expect(retry.json).toStrictEqual(found.json);
    expect(await effects(spec)).toBe(1);
  });

  it('timeout_before_commit: never answers and commits nothing; a retry then commits', async () => {
    await queue(spec.target, 'timeout_before_commit');
    const error = await write(spec, AbortSignal.timeout(300)).catch((caught: unknown) => caught);
    expect((error as DOMException).name).toBe('TimeoutError');

    const missing = await lookup(spec);
    expect(missing.status).toBe(404);
    expect(await effects(spec)).toBe(0);

    expect((await write(spec)).status).toBe(201);
    expect(await effects(spec)).toBe(1);
  });

  it('malformed: commits and answers 201 with a body that is not JSON', async () => {
    await queue(spec.target, 'malformed');
    const reply = await write(spec);
    expect(reply.status).toBe(201);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(() => JSON.parse(reply.text) as unknown).toThrow(SyntaxError);
    expect((await lookup(spec)).status).toBe(200);
    expect(await effects(spec)).toBe(1);
  });

  it('wrong_resource: commits and answers 201 with the record of another resource', async () => {
    await queue(spec.target, 'wrong_resource');
    const reply = await write(spec);
    expect(reply.status).toBe(201);
    const claimed = (reply.json as Record<string, unknown>)[spec.resourceField];
    expect(claimed).toEqual(expect.any(String));
    expect(claimed).not.toBe(spec.resource);

    const committed = await lookup(spec);
    expect(committed.status).toBe(200);
    expect(committed.json).toMatchObject({ [spec.resourceField]: spec.resource });
    expect(await effects(spec)).toBe(1);
  });

  it('error_500: answers 500 and commits nothing', async () => {
    await queue(spec.target, 'error_500');
    const reply = await call<ErrorBody>(service.url, 'POST', `/${spec.target}`, { auth: spec.auth, body: spec.body });
    expect(reply.status).toBe(500);
    expect(reply.json.error.code).toBe('injected_fault');
    expect((await lookup(spec)).status).toBe(404);
    expect(await effects(spec)).toBe(0);
  });

  it('times: the fault hits that many writes, in order, then writes are normal again', async () => {
    await queue(spec.target, 'error_500', 2);
    await queue(spec.target, 'malformed');
    expect((await call(service.url, 'GET', '/__faults')).json).toStrictEqual({
      pending: { refunds: [], holds: [], [spec.target]: ['error_500', 'error_500', 'malformed'] },
    });
    const statuses: number[] = [];
    const texts: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const reply = await write(spec);
      statuses.push(reply.status);
      texts.push(reply.text);
    }
    expect(statuses).toEqual([500, 500, 201, 200]);
    expect(() => JSON.parse(texts[2] ?? '') as unknown).toThrow(SyntaxError);
    expect(JSON.parse(texts[3] ?? '')).toMatchObject({ idempotencyKey: 'fault-key' });
  });
});

describe('fault bookkeeping', () => {
  it('a fault only hits its own target', async () => {
    await queue('refunds', 'error_500');
    expect((await call(service.url, 'POST', '/holds', { auth: INVENTORY, body: holdBody() })).status).toBe(201);
    expect((await call(service.url, 'POST', '/refunds', { auth: PAYMENTS, body: refundBody() })).status).toBe(500);
  });

  it('a refused request (auth, validation) does not consume a fault', async () => {
    await queue('refunds', 'error_500');
    expect((await call(service.url, 'POST', '/refunds', { body: refundBody() })).status).toBe(401);
    expect(
      (await call(service.url, 'POST', '/refunds', { auth: PAYMENTS, body: refundBody({ amountMinor: '1' }) })).status,
    ).toBe(400);
    expect((await call(service.url, 'POST', '/refunds', { auth: PAYMENTS, body: refundBody() })).status).toBe(500);
  });

  it('DELETE /__faults clears every queued fault', async () => {
    await queue('refunds', 'error_500', 3);
    await queue('holds', 'timeout_before_commit');
    const cleared = await call(service.url, 'DELETE', '/__faults');
    expect(cleared).toMatchObject({ status: 200, json: { pending: { refunds: [], holds: [] } } });
    expect((await call(service.url, 'POST', '/refunds', { auth: PAYMENTS, body: refundBody() })).status).toBe(201);
    expect((await call(service.url, 'POST', '/holds', { auth: INVENTORY, body: holdBody() })).status).toBe(201);
  });

  it.each([
    [{ target: 'payments', mode: 'error_500' }, 'target'],
    [{ target: 'refunds', mode: 'explode' }, 'mode'],
    [{ target: 'refunds', mode: 'error_500', times: 0 }, 'times'],
    [{ target: 'refunds', mode: 'error_500', times: 1.5 }, 'times'],
    [{ target: 'refunds', mode: 'error_500', times: '2' }, 'times'],
    [{ target: 'refunds', mode: 'error_500', extra: 1 }, 'extra'],
  ])('POST /__faults %j is 400 naming %s', async (body, field) => {
    const reply = await call<ErrorBody>(service.url, 'POST', '/__faults', { body });
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe('invalid_request');
    expect(reply.json.error.message).toContain(field);
    expect((await call(service.url, 'GET', '/__faults')).json).toStrictEqual({ pending: { refunds: [], holds: [] } });
  });

  it('POST /__reset restores the seeded world and drops queued faults', async () => {
    expect(
      (
        await call(service.url, 'POST', '/refunds', {
          auth: PAYMENTS,
          body: refundBody({ orderId: 'ord_1843', currency: 'EUR' }),
        })
      ).status,
    ).toBe(201);
    expect((await call(service.url, 'POST', '/holds', { auth: INVENTORY, body: holdBody() })).status).toBe(201);
    await queue('refunds', 'error_500');

    expect(await call(service.url, 'POST', '/__reset')).toMatchObject({ status: 200, json: { status: 'reset' } });
    expect((await call(service.url, 'GET', '/orders/ord_1843')).json).toMatchObject({
      refundedMinor: 2000,
      refunds: [{ id: 're_seed_ord_1843', amountMinor: 2000 }],
    });
    expect((await call(service.url, 'GET', '/skus/filter-blue')).json).toMatchObject({ holds: [] });
    expect((await call(service.url, 'GET', '/refunds?idempotencyKey=refund-key-1', { auth: PAYMENTS })).status).toBe(
      404,
    );
    expect((await call(service.url, 'GET', '/__faults')).json).toStrictEqual({ pending: { refunds: [], holds: [] } });
    expect(
      (
        await call(service.url, 'POST', '/refunds', {
          auth: PAYMENTS,
          body: refundBody({ orderId: 'ord_1843', currency: 'EUR' }),
        })
      ).status,
    ).toBe(201);
  });
});

describe('outside test mode', () => {
  it.each([
    ['POST', '/__faults', { target: 'refunds', mode: 'error_500' }],
    ['GET', '/__faults', undefined],
    ['DELETE', '/__faults', undefined],
    ['POST', '/__reset', undefined],
  ])('%s %s is 404 and changes nothing', async (method, path, body) => {
    const plain = await startSystemsOfRecord({ port: 0, credentials: TEST_CREDENTIALS });
    try {
      const reply = await call<ErrorBody>(plain.url, method, path, { body });
      expect(reply.status).toBe(404);
      expect(reply.json.error.code).toBe('not_found');
      const write = await call(plain.url, 'POST', '/refunds', { auth: PAYMENTS, body: refundBody() });
      expect(write.status).toBe(201);
    } finally {
      await plain.close();
    }
  });
});

describe('close()', () => {
  it('resolves while timeout faults hold connections open, and ends them', async () => {
    const own = await startSystemsOfRecord({ port: 0, credentials: TEST_CREDENTIALS, testMode: true });
    await call(own.url, 'POST', '/__faults', { body: { target: 'refunds', mode: 'timeout_before_commit' } });
    await call(own.url, 'POST', '/__faults', { body: { target: 'holds', mode: 'timeout_after_commit' } });
    // No client timeout: only the server closing can end these requests.
    const hungRefund = call(own.url, 'POST', '/refunds', { auth: PAYMENTS, body: refundBody() }).catch(
      (error: unknown) => error,
    );
    const hungHold = call(own.url, 'POST', '/holds', { auth: INVENTORY, body: holdBody() }).catch(
      (error: unknown) => error,
    );
    await vi.waitFor(async () => {
      expect((await call(own.url, 'GET', '/__faults')).json).toStrictEqual({ pending: { refunds: [], holds: [] } });
    });

    await expect(own.close()).resolves.toBeUndefined();
    expect(await hungRefund).toBeInstanceOf(TypeError);
    expect(await hungHold).toBeInstanceOf(TypeError);
    await expect(fetch(`${own.url}/health`)).rejects.toThrow();
    await expect(own.close()).resolves.toBeUndefined();
  });
});
