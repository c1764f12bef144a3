/**
 * The MCP server at /api/mcp through the official MCP client over real HTTP: the route handler
 * behind a loopback server, the demo world seeded, the demo systems of record running.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { DELETE, GET, POST } from '@/app/api/mcp/route';
import { intakeAttempts, proposals } from '@/db/schema';
import { issueAgentKey, revokeKey } from '@/lib/admin/agent-keys';
import { decide } from '@/lib/decisions/decide';
import { setupTestDatabase } from '@/test/db';
import { setupRouteServer } from '@/test/route-server';
import { setupRouteSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { proposalResultSchema } from './results';
import { statusResultSchema } from './status';

// The agent routes need no session; next-auth itself does not load outside Next.
vi.mock('@/lib/auth', () => ({ auth: async () => null }));

// The status tool's pauses between reads, counted (a wait is judged by its pauses, not by a clock).
vi.mock('node:timers/promises', async (importOriginal) => {
  const timers = await importOriginal<typeof import('node:timers/promises')>();
  return { ...timers, setTimeout: vi.fn(timers.setTimeout) };
});
const { setTimeout: pause } = await import('node:timers/promises');
/** The pauses (in ms) awaitDecision asked for since `from` calls: its calls pass `{ signal }` third. */
const pausesSince = (from: number) =>
  vi
    .mocked(pause)
    .mock.calls.slice(from)
    .filter((args) => (args[2] as { signal?: unknown } | undefined)?.signal instanceof AbortSignal)
    .map((args) => Number(args[0]));

const t = setupTestDatabase();
const systemsOfRecord = await setupRouteSystems(t);
const server = setupRouteServer({ POST, GET, DELETE });
let world: SeededWorld;

beforeAll(async () => {
  world = await seedWorld(t.db);
});

type ToolAnswer = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
};

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'countersign-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** A client that listed the tools first, so it validates every structured result against its tool's outputSchema. */
async function acmeClient(): Promise<Client> {
  const client = await connect(world.agentKey('acme'));
  await client.listTools();
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolAnswer;
const textOf = (answer: ToolAnswer) => answer.content.map((c) => c.text ?? '').join('\n');

let counter = 0;
const requestId = (label: string) => `mcp-${label}-${++counter}`;

const rawPost = (headers: Record<string, string>, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }) =>
  fetch(`${server.url}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

describe('MCP authentication', () => {
  it.each([
    ['no key', {}],
    ['a session cookie alone', { cookie: '__Secure-authjs.session-token=anything; authjs.session-token=anything' }],
    ['an unknown key', { authorization: 'Bearer cs_agent_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['a malformed authorization header', { authorization: 'Basic YWxpY2U6c2VjcmV0' }],
  ])('%s: 401 with the API error body and a bearer challenge, before any MCP processing', async (_label, headers) => {
    const response = await rawPost(headers);
    expect(response.status).toBe(401);
    // Without the challenge, clients such as the MCP Inspector start OAuth instead of asking for a key.
    const challenge =
      'authorization' in headers ? 'Bearer realm="countersign", error="invalid_token"' : 'Bearer realm="countersign"';
    expect(response.headers.get('www-authenticate')).toBe(challenge);
    expect(await response.json()).toEqual({
      error: { kind: 'authentication', code: 'unauthenticated', message: expect.any(String) },
    });
  });

  it.each([
    ['a foreign origin', 'http://evil.example.com', 403],
    ['Origin "null" (a sandboxed page)', 'null', 403],
    ['another port on the same host', 'http://127.0.0.1:1', 403],
    ['its own origin (a browser client on the server itself)', 'own', 200],
  ])('Origin: %s', async (_label, origin, status) => {
    const key = { authorization: `Bearer ${world.agentKey('acme')}` };
    const response = await rawPost({ ...key, origin: origin === 'own' ? server.url : origin });
    expect(response.status).toBe(status);
    if (status === 403)
      expect(await response.json()).toEqual({
        error: { kind: 'forbidden', code: 'cross_origin', message: expect.any(String) },
      });
    // Refused before the key is even looked at: no key needed to be told, and a key does not help.
    if (status === 403) expect((await rawPost({ origin })).status).toBe(403);
    for (const method of ['GET', 'DELETE'])
      if (status === 403)
        expect((await fetch(`${server.url}/api/mcp`, { method, headers: { ...key, origin } })).status).toBe(403);
  });

  it('no Origin at all (a program, not a browser) is allowed', async () => {
    const response = await rawPost({ authorization: `Bearer ${world.agentKey('acme')}` });
    expect(response.status).toBe(200);
  });

  it('a revoked key: 401, and the official client cannot connect', async () => {
    const issued = await issueAgentKey(
      t.db,
      'acme',
      { type: 'user', id: world.userId('carol') },
      { name: 'mcp-revoked-bot', actions: ['hold_stock'], grants: { warehouses: ['north'] } },
    );
    await revokeKey(t.db, 'acme', { type: 'user', id: world.userId('carol') }, issued!.agentKey.id);
    expect((await rawPost({ authorization: `Bearer ${issued!.key}` })).status).toBe(401);
    await expect(connect(issued!.key)).rejects.toThrow(/unauthenticated/);
  });

  it('GET and DELETE: 401 without a key, 405 with one (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      expect((await fetch(`${server.url}/api/mcp`, { method })).status).toBe(401);
      const allowed = await fetch(`${server.url}/api/mcp`, {
        method,
        headers: { authorization: `Bearer ${world.agentKey('acme')}` },
      });
      expect(allowed.status).toBe(405);
      expect(allowed.headers.get('allow')).toBe('POST');
    }
  });

  const sendRaw = (body: BodyInit, type = 'application/json') =>
    fetch(`${server.url}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${world.agentKey('acme')}`,
        'content-type': type,
        accept: 'application/json, text/event-stream',
      },
      body,
    });
  const jsonRpcError = (code: number, data?: { code: string }) => ({
    jsonrpc: '2.0',
    id: null,
    error: { code, message: expect.any(String), ...(data ? { data } : {}) },
  });
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(70_000) } });

  it.each([
    ['not JSON', '{"jsonrpc":"2.0",', 'application/json', 400, jsonRpcError(-32700, { code: 'invalid_json' })],
    [
      'not UTF-8',
      new Uint8Array([0x7b, 0xff, 0x7d]),
      'application/json',
      400,
      jsonRpcError(-32700, { code: 'invalid_utf8' }),
    ],
    [
      'a duplicate key (the capped reader)',
      '{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}',
      'application/json',
      400,
      jsonRpcError(-32700, { code: 'duplicate_key' }),
    ],
    ['over 64 KiB', big, 'application/json', 413, jsonRpcError(-32000, { code: 'too_large' })],
    ['not application/json', '{}', 'text/plain', 415, jsonRpcError(-32000, { code: 'unsupported_media_type' })],
    [
      'a batch (one message per request, so each call spends the rate limit)',
      '[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]',
      'application/json',
      400,
      jsonRpcError(-32600, { code: 'batch_not_supported' }),
    ],
    ['an empty batch', '[]', 'application/json', 400, jsonRpcError(-32600, { code: 'batch_not_supported' })],
    ['JSON-RPC 1.0', '{"id":1,"method":"tools/list"}', 'application/json', 400, jsonRpcError(-32600)],
    ['no method', '{"jsonrpc":"2.0","id":1}', 'application/json', 400, jsonRpcError(-32600)],
    [
      'a method that is not a string',
      '{"jsonrpc":"2.0","id":1,"method":7}',
      'application/json',
      400,
      jsonRpcError(-32600),
    ],
    ['an object id', '{"jsonrpc":"2.0","id":{},"method":"tools/list"}', 'application/json', 400, jsonRpcError(-32600)],
    ['a string body', '"tools/list"', 'application/json', 400, jsonRpcError(-32600)],
    ['null', 'null', 'application/json', 400, jsonRpcError(-32600)],
  ])('%s: a JSON-RPC error, not the API error body', async (_label, body, type, status, expected) => {
    const response = await sendRaw(body, type);
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual(expected);
  });
});

describe('MCP tools', () => {
  it('lists one tool per allowed action at its current version, with closed inputs and an outputSchema', async () => {
    const client = await connect(world.agentKey('acme'));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'get_proposal_status',
      'propose_hold_stock',
      'propose_issue_refund',
    ]);
    const hold = tools.find((tool) => tool.name === 'propose_hold_stock')!;
    expect(hold.inputSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['sku', 'quantity', 'requestId'],
      properties: {
        sku: { type: 'string', minLength: 1, maxLength: 40 },
        quantity: { type: 'integer', minimum: 1, maximum: 4 },
        requestId: { type: 'string', pattern: '^[A-Za-z0-9._:-]+$' },
        evidenceRefs: { type: 'array', maxItems: 20 },
        repairOf: { type: 'string' },
      },
    });
    expect(Object.keys(hold.inputSchema.properties ?? {}).sort()).toEqual([
      'evidenceRefs',
      'quantity',
      'repairOf',
      'requestId',
      'sku',
    ]);
    expect(hold.outputSchema).toMatchObject({
      type: 'object',
      required: ['proposalId', 'status', 'payloadHash', 'reviewUrl'],
      additionalProperties: false,
    });
    const status = tools.find((tool) => tool.name === 'get_proposal_status')!;
    expect(status.inputSchema).toMatchObject({
      type: 'object',
      required: ['proposalId'],
      additionalProperties: false,
      properties: { waitSeconds: { type: 'integer', minimum: 0, maximum: 30 } },
    });
    expect(status.outputSchema).toMatchObject({ type: 'object' });
    await client.close();
  });

  it('a key for one action lists only that action', async () => {
    const issued = await issueAgentKey(
      t.db,
      'acme',
      { type: 'user', id: world.userId('carol') },
      { name: 'mcp-hold-bot', actions: ['hold_stock'], grants: { warehouses: ['north'] } },
    );
    const client = await connect(issued!.key);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'get_proposal_status',
      'propose_hold_stock',
    ]);
    // Calling a tool the key does not have changes nothing and reveals nothing.
    const before = await t.db.select().from(intakeAttempts);
    const answer = await call(client, 'propose_issue_refund', {
      requestId: requestId('unlisted'),
      orderId: 'ord_1842',
      amountMinor: 1,
      currency: 'USD',
      reason: 'x',
    });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/^Refused: unknown_tool\./);
    expect(await t.db.select().from(intakeAttempts)).toHaveLength(before.length);
    await client.close();
  });

  it('a valid call goes through intake: a pending proposal whose result validates against the outputSchema; a retry answers the same', async () => {
    const client = await acmeClient();
    const id = requestId('valid');
    const answer = await call(client, 'propose_hold_stock', {
      requestId: id,
      sku: 'filter-gray',
      quantity: 1,
      evidenceRefs: [],
    });
    expect(answer.isError).toBeFalsy();
    const result = proposalResultSchema.parse(answer.structuredContent);
    expect(result).toEqual({
      proposalId: expect.stringMatching(/^prp_/),
      status: 'pending_approval',
      payloadHash: expect.stringMatching(/^sha256:/),
      reviewUrl: `${server.url}/proposals/${result.proposalId}`,
    });
    expect(JSON.parse(textOf(answer))).toEqual(result);
    const [stored] = await t.db.select().from(proposals).where(eq(proposals.id, result.proposalId));
    expect(stored).toMatchObject({
      tenantId: 'acme',
      action: 'hold_stock',
      contractVersion: 1,
      requestId: id,
      payloadHash: result.payloadHash,
      payload: { args: { sku: 'filter-gray', quantity: 1 }, evidenceRefs: [] },
    });
    const retry = await call(client, 'propose_hold_stock', { requestId: id, sku: 'filter-gray', quantity: 1 });
    expect(retry.structuredContent).toEqual(result);
    await client.close();
  });

  it.each([
    [
      'a numeric string (never coerced)',
      { sku: 'filter-blue', quantity: '2' },
      422,
      ['quantity: expected integer; received string of 1 character'],
      'contract_violation',
    ],
    [
      'over the contract bound',
      { sku: 'filter-blue', quantity: 9 },
      422,
      ['quantity: expected a number at most 4; received integer 9'],
      'contract_violation',
    ],
    [
      'an unknown field (a body field named like the tenant)',
      { sku: 'filter-blue', quantity: 1, tenantId: 'globex' },
      422,
      ['tenantId: expected no such field'],
      'contract_violation',
    ],
    ['a missing argument', { quantity: 1 }, 422, ['sku: expected string; received nothing'], 'contract_violation'],
    ['a business rule', { sku: 'filter-gray', quantity: 3 }, 422, [], 'hold_limit'],
    ["another tenant's SKU", { sku: 'filter-green', quantity: 1 }, 403, [], 'not_authorized'],
    ["a SKU outside the key's warehouses", { sku: 'filter-red', quantity: 1 }, 403, [], 'not_authorized'],
    [
      "another tenant's evidence",
      { sku: 'filter-blue', quantity: 1, evidenceRefs: ['ticket_message_90'] },
      403,
      [],
      'not_authorized',
    ],
  ])(
    '%s: a tool error naming each field and what was expected; the attempt is recorded',
    async (_label, args, status, fieldLines, code) => {
      const client = await acmeClient();
      const id = requestId('refused');
      const answer = await call(client, 'propose_hold_stock', { requestId: id, ...args });
      expect(answer.isError).toBe(true);
      expect(answer.structuredContent).toBeUndefined();
      const text = textOf(answer);
      expect(text).toMatch(new RegExp(`^Refused: ${code} \\(`));
      for (const line of fieldLines) expect(text).toContain(`- ${line}`);
      // Each field is named once: its line does not say the same again in other words.
      for (const line of fieldLines) expect(text.split(line.split(':')[0]!).length - 1, text).toBe(1);
      if (code === 'not_authorized') {
        // Exactly the HTTP API's words: missing and foreign resources cannot be told apart.
        expect(text).toBe(
          'Refused: not_authorized (authorization). A referenced resource does not exist or may not be used by ' +
            'this key.',
        );
      }
      if (status === 422) expect(text).toContain(`repairOf "${id}" (3 repairs left)`);
      const [attempt] = await t.db.select().from(intakeAttempts).where(eq(intakeAttempts.requestId, id));
      expect(attempt).toMatchObject({ outcome: 'rejected', httpStatus: status, errorCode: code });
      await client.close();
    },
  );

  it('an invalid call, then its repair (repairOf) is accepted; a reused requestId with other arguments is a conflict', async () => {
    const client = await acmeClient();
    const refused = requestId('repair');
    const first = await call(client, 'propose_hold_stock', { requestId: refused, sku: 'filter-blue', quantity: 5 });
    expect(first.isError).toBe(true);
    expect(textOf(first)).toContain('- quantity: expected a number at most 4; received integer 5.');
    const repaired = await call(client, 'propose_hold_stock', {
      requestId: requestId('repaired'),
      repairOf: refused,
      sku: 'filter-blue',
      quantity: 1,
    });
    expect(repaired.isError).toBeFalsy();
    const { proposalId } = proposalResultSchema.parse(repaired.structuredContent);
    const [stored] = await t.db.select().from(proposals).where(eq(proposals.id, proposalId));
    expect(stored?.repairOf).toBe(refused);

    const conflict = await call(client, 'propose_hold_stock', {
      requestId: stored!.requestId,
      sku: 'filter-blue',
      quantity: 2,
    });
    expect(conflict.isError).toBe(true);
    expect(textOf(conflict)).toMatch(/^Refused: idempotency_conflict \(idempotency\)/);
    await client.close();
  });

  it('the repair budget: the last repair says none are left', async () => {
    const client = await acmeClient();
    let previous = requestId('budget');
    await call(client, 'propose_hold_stock', { requestId: previous, sku: 'filter-blue', quantity: 7 });
    const texts: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const next = requestId('budget');
      texts.push(
        textOf(
          await call(client, 'propose_hold_stock', {
            requestId: next,
            repairOf: previous,
            sku: 'filter-blue',
            quantity: 7,
          }),
        ),
      );
      previous = next;
    }
    expect(texts[0]).toContain('(2 repairs left)');
    expect(texts[1]).toContain('(1 repair left)');
    expect(texts[2]).toContain('Repair: no repairs are left for this request');
    const over = textOf(
      await call(client, 'propose_hold_stock', {
        requestId: requestId('budget'),
        repairOf: previous,
        sku: 'filter-blue',
        quantity: 1,
      }),
    );
    expect(over).toMatch(/^Refused: repair_limit_reached/);
    await client.close();
  });
});

describe('get_proposal_status', () => {
  async function pendingHold(client: Client) {
    const answer = await call(client, 'propose_hold_stock', {
      requestId: requestId('status'),
      sku: 'filter-blue',
      quantity: 1,
    });
    return proposalResultSchema.parse(answer.structuredContent);
  }

  it('answers a pending proposal at once, then waits (bounded) for the decision an operator makes meanwhile', async () => {
    const client = await acmeClient();
    const created = await pendingHold(client);
    const now = statusResultSchema.parse(
      (await call(client, 'get_proposal_status', { proposalId: created.proposalId })).structuredContent,
    );
    expect(now).toMatchObject({
      proposalId: created.proposalId,
      status: 'pending_approval',
      pending: true,
      decisions: [],
      execution: null,
      payloadHash: created.payloadHash,
      reviewUrl: created.reviewUrl,
    });

    const received = server.received;
    const from = vi.mocked(pause).mock.calls.length;
    const waiting = call(client, 'get_proposal_status', { proposalId: created.proposalId, waitSeconds: 30 });
    // The decision lands once the call is waiting; the call answers at its next read, not at the end of its 30 s.
    await vi.waitFor(() => expect(pausesSince(from).length).toBeGreaterThan(0));
    expect(server.received).toBe(received + 1);
    const pausesBefore = vi.mocked(pause).mock.calls.length;
    await decide(t.db, systemsOfRecord.client, {
      userId: world.userId('alice'),
      proposalId: created.proposalId,
      request: { decision: 'approve', payloadHash: created.payloadHash },
    });
    const after = statusResultSchema.parse((await waiting).structuredContent);
    // The pause under way when the decision landed, and at most one begun before that read saw it.
    expect(pausesSince(pausesBefore).length).toBeLessThanOrEqual(1);
    expect(after).toMatchObject({
      pending: false,
      decisions: [{ decision: 'approve', reason: null, at: expect.any(String) }],
    });
    expect(['approved', 'executing', 'succeeded']).toContain(after.status);
    expect(JSON.stringify(after)).not.toContain(world.userId('alice'));
    await client.close();
  });

  it('a bounded wait on a proposal nobody decides answers pending when the wait ends', async () => {
    const client = await acmeClient();
    const created = await pendingHold(client);
    const from = vi.mocked(pause).mock.calls.length;
    const answer = statusResultSchema.parse(
      (await call(client, 'get_proposal_status', { proposalId: created.proposalId, waitSeconds: 1 })).structuredContent,
    );
    // It paused before answering (an ignored wait pauses never), each pause within the second asked for.
    const pauses = pausesSince(from);
    expect(pauses.length).toBeGreaterThan(0);
    expect(pauses.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(1_000);
    expect(answer.status).toBe('pending_approval');
    await client.close();
  });

  it.each([
    [
      'waitSeconds over the bound (never shortened)',
      { waitSeconds: 31 },
      '- waitSeconds: expected a number at most 30; received integer 31.',
    ],
    ['waitSeconds not an integer', { waitSeconds: 1.5 }, '- waitSeconds: expected integer; received number 1.5.'],
    ['an unknown field', { tenantId: 'globex' }, '- tenantId: expected no such field'],
  ])('%s: a tool error naming the field', async (_label, extra, line) => {
    const client = await acmeClient();
    const answer = await call(client, 'get_proposal_status', { proposalId: 'prp_x', ...extra });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toContain(line);
    await client.close();
  });

  it("another tenant's proposal and an unknown id read alike: not found", async () => {
    const globex = await connect(world.agentKey('globex'));
    const answer = await call(globex, 'propose_hold_stock', {
      requestId: requestId('globex'),
      sku: 'filter-green',
      quantity: 1,
    });
    const { proposalId } = proposalResultSchema.parse(answer.structuredContent);
    const client = await acmeClient();
    const foreign = await call(client, 'get_proposal_status', { proposalId });
    const unknown = await call(client, 'get_proposal_status', { proposalId: 'prp_does_not_exist' });
    expect(foreign.isError).toBe(true);
    expect(textOf(foreign)).toBe('Refused: not_found (not_found). No proposal with that id.');
    expect(textOf(unknown)).toBe(textOf(foreign));
    await Promise.all([client.close(), globex.close()]);
  });
});
