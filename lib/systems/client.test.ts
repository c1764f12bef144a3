import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSystemsClient, createSystemsWriteClient, SystemsUnavailableError } from './client';
import { createSystemsTransport, MAX_ANSWER_BYTES, type SystemsTransport } from './transport';

/**
 * The systems-of-record clients over their own keep-alive pool, against a loopback server that
 * counts the TCP connections it accepts and the requests it sees.
 */

type Seen = { connections: number; requests: { method: string; path: string }[] };
let seen: Seen = { connections: 0, requests: [] };
/**
 * `reused`: a request arriving on a socket that already answered one finds it closed, as if the
 * server timed it out just then. `all`: every socket is closed as its request arrives.
 */
let drop: 'none' | 'reused' | 'all' = 'none';
/** While holding, requests wait here for the test to answer them (a request in flight keeps its socket busy). */
let holding = false;
let held: (() => void)[] = [];
let onHeld: (() => void) | undefined;

const server = http.createServer((request, response) => {
  seen.requests.push({ method: request.method ?? '?', path: request.url ?? '' });
  const socket = request.socket as typeof request.socket & { answered?: number };
  if (drop === 'all' || (drop === 'reused' && (socket.answered ?? 0) > 0)) {
    socket.destroy();
    return;
  }
  socket.answered = (socket.answered ?? 0) + 1;
  const answer = () => {
    if (request.url?.startsWith('/endless/')) return endless(response);
    if (request.url?.startsWith('/missing/'))
      return response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found"}}');
    if (request.method === 'POST')
      return response.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"refund_1"}');
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ id: request.url?.split('/').at(-1) }));
  };
  if (!holding) return answer();
  held.push(answer);
  onHeld?.();
});
/** An answer that never ends: 64 KiB chunks for as long as the client reads them. */
let endlessClosed: Promise<number> | undefined;
function endless(response: http.ServerResponse) {
  response.writeHead(200, { 'content-type': 'application/json' });
  let sent = 0;
  endlessClosed = new Promise((resolve) => response.on('close', () => resolve(sent)));
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const more = () => {
    while (!response.destroyed && response.write(chunk)) sent += chunk.length;
    if (!response.destroyed) response.once('drain', more);
  };
  more();
}
server.on('connection', () => {
  seen.connections += 1;
});

/** Resolves once `count` requests are held. */
function heldRequests(count: number): Promise<void> {
  return new Promise((resolve) => {
    onHeld = () => {
      if (held.length >= count) resolve();
    };
    onHeld();
  });
}

let baseUrl = '';
const transports: SystemsTransport[] = [];
const pool = (maxSockets?: number) => {
  const transport = createSystemsTransport({ maxSockets });
  transports.push(transport);
  return transport;
};
const credentials = { payments: 'pay_test_credential_0001', inventory: 'inv_test_credential_0001' };
const record = z.object({ id: z.string() });

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const transport of transports.splice(0)) transport.close();
  server.closeAllConnections();
  seen = { connections: 0, requests: [] };
  drop = 'none';
  holding = false;
  held = [];
  onHeld = undefined;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the systems-of-record pool', () => {
  it('sends sequential reads over one kept-alive connection', async () => {
    const client = createSystemsClient({ baseUrl, credentials, transport: pool() });

    for (let i = 0; i < 20; i += 1)
      expect(await client.read(`/orders/ord_${i}`, record, 'payments')).toEqual({ id: `ord_${i}` });
    expect(await client.read('/missing/ord_x', record, 'payments')).toBeUndefined();

    expect(seen.requests).toHaveLength(21);
    expect(seen.connections).toBe(1);
  });

  it('shares the connection between reads, look-ups and writes of every scope', async () => {
    const transport = pool();
    const reads = createSystemsClient({ baseUrl, credentials, transport });
    const payments = createSystemsWriteClient({
      baseUrl,
      credential: credentials.payments,
      scope: 'payments',
      transport,
    });
    const inventory = createSystemsWriteClient({
      baseUrl,
      credential: credentials.inventory,
      scope: 'inventory',
      transport,
    });

    await reads.read('/orders/ord_1', record, 'payments');
    expect(await payments.write('/refunds', { orderId: 'ord_1' })).toEqual({
      kind: 'answered',
      status: 201,
      body: { id: 'refund_1' },
    });
    expect(await inventory.lookup('/holds?idempotencyKey=cs.1')).toEqual({
      found: true,
      body: { id: 'holds?idempotencyKey=cs.1' },
    });
    expect(await payments.lookup('/missing/refund')).toEqual({ found: false });

    expect(seen.requests.map((request) => request.method)).toEqual(['GET', 'POST', 'GET', 'GET']);
    expect(seen.connections).toBe(1);
  });

  it('opens no more connections than maxSockets; the rest wait for one', async () => {
    const client = createSystemsClient({ baseUrl, credentials, transport: pool(2) });
    holding = true;

    const reads = Array.from({ length: 6 }, (_, i) => client.read(`/orders/ord_${i}`, record, 'payments'));
    await heldRequests(2);
    expect(seen.requests).toHaveLength(2);
    holding = false;
    for (const answer of held.splice(0)) answer();

    expect(await Promise.all(reads)).toEqual(Array.from({ length: 6 }, (_, i) => ({ id: `ord_${i}` })));
    expect(seen.connections).toBe(2);
  });

  it('reads again on a fresh connection when the server closed the kept-alive one as the read arrived', async () => {
    const client = createSystemsClient({ baseUrl, credentials, transport: pool() });
    await client.read('/orders/ord_1', record, 'payments');
    drop = 'reused';

    expect(await client.read('/orders/ord_2', record, 'payments')).toEqual({ id: 'ord_2' });
    expect(
      await createSystemsWriteClient({ baseUrl, credential: credentials.payments, transport: pool() }).lookup(
        '/refunds?idempotencyKey=cs.2',
      ),
    ).toMatchObject({ found: true });

    expect(seen.requests.map((request) => request.path)).toEqual([
      '/orders/ord_1',
      '/orders/ord_2',
      '/orders/ord_2',
      '/refunds?idempotencyKey=cs.2',
    ]);
    expect(seen.connections).toBe(3);
  });

  it('never sends a write twice: a write on a socket the server closed is an unknown outcome', async () => {
    const transport = pool();
    const writes = createSystemsWriteClient({
      baseUrl,
      credential: credentials.payments,
      scope: 'payments',
      transport,
    });
    await createSystemsClient({ baseUrl, credentials, transport }).read('/orders/ord_1', record, 'payments');
    drop = 'reused';

    expect(await writes.write('/refunds', { orderId: 'ord_1' })).toEqual({ kind: 'unknown', reason: 'unreachable' });

    expect(seen.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
    expect(seen.connections).toBe(1);
  });

  it('a read that finds its fresh connection closed is unavailable, not retried', async () => {
    const client = createSystemsClient({ baseUrl, credentials, transport: pool() });
    drop = 'all';

    await expect(client.read('/orders/ord_1', record, 'payments')).rejects.toMatchObject({
      name: 'SystemsUnavailableError',
      reason: 'unreachable',
    });
    expect(seen.requests).toHaveLength(1);
  });

  it('an answer over MAX_ANSWER_BYTES is cut off: unavailable, the connection closed, the pool still serving', async () => {
    const client = createSystemsClient({ baseUrl, credentials, transport: pool(1) });
    await expect(client.read('/endless/ord_1', record, 'payments')).rejects.toMatchObject({
      name: 'SystemsUnavailableError',
      reason: 'unexpected response shape',
    });
    // The server saw the client hang up: it wrote a bounded amount, not until a deadline.
    expect(await endlessClosed).toBeLessThan(MAX_ANSWER_BYTES * 64);
    expect(await client.read('/orders/ord_2', record, 'payments')).toEqual({ id: 'ord_2' });
  });

  it('a deadline ends a held read as a timeout and frees its place in the pool', async () => {
    const client = createSystemsClient({ baseUrl, credentials, timeoutMs: 200, transport: pool(1) });
    holding = true;

    const late = await client.read('/orders/ord_1', record, 'payments').catch((error: unknown) => error);
    expect(late).toBeInstanceOf(SystemsUnavailableError);
    expect((late as SystemsUnavailableError).reason).toBe('timeout');
    holding = false;
    expect(await client.read('/orders/ord_2', record, 'payments')).toEqual({ id: 'ord_2' });
  });
});
