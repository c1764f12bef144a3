import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAgentClient } from './index';

// The client's handling of every kind of answer, against a real HTTP server that answers as the
// API does (the API itself is exercised end to end in e2e/examples.spec.ts).
type Reply = { status: number; body: string; headers?: Record<string, string> };
const script: Reply[] = [];
const seen: { method?: string; url?: string; authorization?: string; body: string }[] = [];
let server: http.Server;
let baseUrl: string;

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
  status,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', ...headers },
});
const proposal = (status: string) => ({
  id: 'prp_1',
  status,
  action: 'issue_refund',
  contractVersion: 1,
  payloadHash: 'sha256:00',
  createdAt: '',
  expiresAt: '',
  links: { self: '', review: 'http://x/proposals/prp_1' },
});
const state = (status: string) => ({
  ...proposal(status),
  summary: 'Refund',
  statusReason: null,
  decidedAt: null,
  decisions: [],
  execution: null,
});

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization, body });
      const reply =
        script.shift() ?? json(500, { error: { kind: 'internal', code: 'internal_error', message: 'unscripted' } });
      response.writeHead(reply.status, reply.headers).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = () => createAgentClient({ baseUrl, agentKey: 'cs_agent_test' });
const input = {
  requestId: 'req_1',
  action: 'issue_refund',
  contractVersion: 1,
  args: { orderId: 'ord_1', amountMinor: 1, currency: 'USD', reason: 'r' },
};

describe('agent client', () => {
  it.each([
    [201, true],
    [200, false],
  ])('propose answers %i as created=%s, sending the envelope with the key', async (status, created) => {
    script.push(json(status, { proposal: proposal('pending_approval') }));
    const result = await client().propose(input);
    expect(result).toEqual({ ok: true, value: { proposal: proposal('pending_approval'), created } });
    const request = seen.at(-1)!;
    expect([request.method, request.url, request.authorization, JSON.parse(request.body)]).toEqual([
      'POST',
      '/api/v1/proposals',
      'Bearer cs_agent_test',
      input,
    ]);
  });

  it.each([
    [
      'a contract failure, with issues and repair',
      json(422, {
        error: {
          kind: 'schema',
          code: 'contract_violation',
          message: 'm',
          issues: [{ field: 'amountMinor', code: 'too_small', message: 'at least 1' }],
          repair: { allowed: true, attemptsLeft: 2 },
        },
      }),
      {
        type: 'api',
        status: 422,
        errorKind: 'schema',
        code: 'contract_violation',
        issues: [{ field: 'amountMinor', code: 'too_small', message: 'at least 1' }],
        repair: { allowed: true, attemptsLeft: 2 },
      },
    ],
    [
      'a rate limit with Retry-After',
      json(429, { error: { kind: 'rate_limit', code: 'rate_limited', message: 'm' } }, { 'retry-after': '7' }),
      { type: 'api', status: 429, code: 'rate_limited', retryAfterSeconds: 7, issues: [] },
    ],
    [
      'an unknown key',
      json(401, { error: { kind: 'authentication', code: 'unauthenticated', message: 'm' } }),
      { type: 'api', status: 401, code: 'unauthenticated' },
    ],
    [
      'a proxy error page',
      { status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } },
      { type: 'malformed_response', status: 502 },
    ],
    ['JSON without the proposal', json(201, { ok: true }), { type: 'malformed_response', status: 201 }],
  ])('propose turns %s into a typed error value', async (_name, reply, expected) => {
    script.push(reply);
    const result = await client().propose(input);
    expect(result.ok).toBe(false);
    expect(result.ok ? undefined : result.error).toMatchObject(expected);
  });

  it('answers a network error as a value, never a throw', async () => {
    const result = await createAgentClient({ baseUrl: 'http://127.0.0.1:9/', agentKey: 'k', timeoutMs: 2_000 }).get(
      'prp_1',
    );
    expect(result.ok ? undefined : result.error.type).toBe('network');
  });

  it('waits through pending and a 503 with backoff until the outcome is final', async () => {
    script.push(
      json(200, state('pending_approval')),
      json(503, { error: { kind: 'unavailable', code: 'systems_unavailable', message: 'm' } }, { 'retry-after': '1' }),
      json(200, state('executing')),
      json(200, state('succeeded')),
    );
    const states: string[] = [];
    // The pauses the client asks for, read from the timers it sets rather than from a clock.
    const timers = vi.spyOn(globalThis, 'setTimeout');
    let pauses: number[];
    try {
      const result = await client().waitForDecision('prp_1', {
        until: 'final',
        initialDelayMs: 20,
        onState: (s) => states.push(s.status),
      });
      expect(result.ok && result.value.status).toBe('succeeded');
      // The client's pause resolves a promise (an anonymous function); the HTTP stack's own timers are named.
      pauses = timers.mock.calls.filter(([callback]) => callback.name === '').map((args) => Number(args[1]));
    } finally {
      timers.mockRestore();
    }
    expect(states).toEqual(['pending_approval', 'executing', 'succeeded']);
    // Backoff from 20 ms (10–20, then 20–40 with jitter), except after the 503: its Retry-After of 1 s.
    expect(pauses).toHaveLength(3);
    expect(pauses[1]).toBe(1_000);
    for (const ms of [pauses[0]!, pauses[2]!]) expect(ms).toBeLessThanOrEqual(80);
  });

  it('stops at the deadline with the last state it saw', async () => {
    for (let i = 0; i < 20; i++) script.push(json(200, state('pending_approval')));
    const result = await client().waitForDecision('prp_1', { deadlineMs: 150, initialDelayMs: 20, maxDelayMs: 40 });
    script.length = 0;
    expect(result.ok ? undefined : result.error).toMatchObject({
      type: 'deadline',
      last: { status: 'pending_approval' },
    });
  });

  it('stops at once on an error that waiting cannot fix', async () => {
    script.push(json(404, { error: { kind: 'not_found', code: 'not_found', message: 'No proposal with that id.' } }));
    const result = await client().waitForDecision('prp_missing', { initialDelayMs: 20 });
    expect(result.ok ? undefined : result.error).toMatchObject({ type: 'api', status: 404, code: 'not_found' });
  });
});
