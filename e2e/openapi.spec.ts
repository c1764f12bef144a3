import fs from 'node:fs';
import { type APIRequestContext, type APIResponse, expect, request as playwrightRequest, test } from '@playwright/test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { agentKey, apiSession, codeEmailedTo, postCredentials, proposeHold, uniqueRequestId } from './support';

/**
 * The OpenAPI document against the production server: it is public at /api/v1/openapi.json, and
 * for every operation it lists, every status it documents is produced here by a real request whose
 * answer must match the documented schema (Ajv, JSON Schema 2020-12). A documented status that no
 * request produced fails the walk, so the document cannot promise what nobody checked.
 */

type Json = Record<string, unknown>;

type Media = { schema?: { $ref?: string } };
type DocResponse = { content?: Record<string, Media> };
type DocOperation = {
  operationId: string;
  security: Json[];
  requestBody?: { content: Record<string, Media> };
  tags: string[];
  responses: Record<string, DocResponse>;
};
type Document = { openapi: string; paths: Record<string, Record<string, DocOperation>>; components: Json };
type Located = { path: string; method: string; operation: DocOperation };

const BIG = `{"pad":"${'x'.repeat(70 * 1024)}"}`;
/** Bodies that fail the reader or the schema of any route, before its handler runs (lib/http/body.ts). */
const GENERIC_BODIES: Record<number, { type: string; body: string }> = {
  400: { type: 'application/json', body: '{"unfinished": ' },
  413: { type: 'application/json', body: BIG },
  415: { type: 'text/plain', body: '{}' },
  422: { type: 'application/json', body: '{"notAField": 1}' },
};

/**
 * Documented statuses no request of this walk can produce without harming the rest of the run,
 * each with the test that produces it.
 */
const PASSKEY_NEEDED =
  "needs a registered passkey, i.e. a WebAuthn authenticator's signature, which this walk has none of: lib/passkeys/passkeys.int.test.ts calls the route with a software authenticator, e2e/passkeys.spec.ts with Chromium's virtual one";
const PRODUCED_ELSEWHERE: Record<string, string> = {
  'executeCommand 409':
    'hash_mismatch needs a correctly signed command whose payload is not the approved one, which only the signing key makes: lib/commands/execute.int.test.ts',
  'acceptInvitation 429':
    "the sign-in throttle locks the client's address after 50 failures, which would refuse every later sign-in of the run; code_attempts_exhausted is lib/admin/accounts-across-tenants.int.test.ts: lib/admin/invitation-routes.int.test.ts",
  'addPasskey 201': PASSKEY_NEEDED,
  'addPasskey 409': PASSKEY_NEEDED,
  'addPasskey 410': PASSKEY_NEEDED,
  'removeMyPasskey 200': PASSKEY_NEEDED,
  'removeMyPasskey 409': PASSKEY_NEEDED,
  'resetPasskey 200': PASSKEY_NEEDED,
  'resetPasskey 409': `passkey_required_elsewhere ${PASSKEY_NEEDED.replace(/^needs/, 'needs a person of two tenants, one requiring passkeys, and')}; lib/admin/shared-person.int.test.ts`,
  'decisionChallenge 200': PASSKEY_NEEDED,
  'decisionChallenge 409': PASSKEY_NEEDED,
};

/** Loads the document and checks answers against it, remembering each (operation, status) it saw. */
class Walk {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  readonly exercised = new Set<string>();
  readonly operations: Located[];

  constructor(readonly document: Document) {
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: 'openapi.json', components: document.components });
    this.operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
  }

  find(operationId: string): Located {
    const found = this.operations.find((each) => each.operation.operationId === operationId);
    if (!found) throw new Error(`the document has no operation ${operationId}`);
    return found;
  }

  /** Every documented (operation, status) pair; `default` stands for unplanned failures and has no single status to produce. */
  documented(): string[] {
    return this.operations.flatMap(({ operation }) =>
      Object.keys(operation.responses)
        .filter((status) => status !== 'default')
        .map((status) => `${operation.operationId} ${status}`),
    );
  }

  /** The answer is documented for this operation, in a documented media type, and its body matches the schema. */
  async check(operationId: string, response: APIResponse, expectedStatus: number) {
    const what = `${operationId} → ${expectedStatus}`;
    expect(response.status(), `${what}: ${(await response.text()).slice(0, 300)}`).toBe(expectedStatus);
    const documented = this.find(operationId).operation.responses[String(expectedStatus)];
    expect(documented, `${what} is documented`).toBeDefined();
    if (!documented!.content) {
      expect((await response.body()).length, `${what}: no body, as documented`).toBe(0);
      this.exercised.add(`${operationId} ${expectedStatus}`);
      return;
    }
    const contentType = (response.headers()['content-type'] ?? '').split(';')[0]!.trim();
    const media = documented!.content?.[contentType];
    expect(media, `${what}: ${contentType} is a documented media type`).toBeDefined();
    if (contentType === 'application/json') {
      const validate = this.validator(media!.schema!.$ref!);
      const body: unknown = await response.json();
      validate(body);
      expect(validate.errors ?? [], what).toStrictEqual([]);
    } else {
      expect((await response.text()).length, what).toBeGreaterThan(0);
    }
    this.exercised.add(`${operationId} ${expectedStatus}`);
  }

  private validator(ref: string): ValidateFunction {
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json${ref}` });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}

/** `stranger` has an account and a session but is a member of no tenant. */
type Callers = { anon: APIRequestContext; carol: APIRequestContext; stranger: APIRequestContext; origin: string };
type Send = {
  data?: unknown;
  raw?: { type: string; body: string };
  origin?: boolean;
  headers?: Record<string, string>;
};

/** One request; JSON bodies carry a same-origin `Origin` unless `origin: false`. */
function send(
  api: APIRequestContext,
  method: string,
  url: string,
  origin: string,
  { data, raw, origin: withOrigin = true, headers = {} }: Send = {},
) {
  const body = raw ? Buffer.from(raw.body) : data === undefined ? undefined : Buffer.from(JSON.stringify(data));
  const type = raw ? raw.type : data === undefined ? undefined : 'application/json';
  return api.fetch(url, {
    method: method.toUpperCase(),
    headers: { ...(type ? { 'content-type': type } : {}), ...(withOrigin ? { origin } : {}), ...headers },
    ...(body ? { data: body } : {}),
    maxRedirects: 0,
  });
}

const withIds = (path: string, id = 'nope') => path.replace(/\{[^}]+\}/g, id);
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * The statuses every operation of a kind answers the same way, produced from the document alone:
 * 401 without credentials; 403 from someone of no tenant on a read, or a mutation without `Origin`;
 * 400/413/415/422 from bodies no route accepts.
 */
async function walkGenericStatuses(walk: Walk, callers: Callers) {
  // The executor's body is a signed command, not JSON: its statuses are produced one by one.
  const readsJson = ({ operation }: Located) =>
    !operation.requestBody || 'application/json' in operation.requestBody.content;
  for (const { path, method, operation } of walk.operations.filter(readsJson)) {
    const url = withIds(path);
    const byAgent =
      operation.security.some((scheme) => 'agentKey' in scheme) &&
      !operation.security.some((scheme) => 'session' in scheme);
    const caller = (api: APIRequestContext, options: Send = {}) =>
      send(
        api,
        method,
        url,
        callers.origin,
        byAgent ? { ...options, headers: { ...options.headers, ...bearer(agentKey('acme')) } } : options,
      );
    const signedIn = operation.security.length === 0 ? callers.anon : callers.carol;
    for (const status of Object.keys(operation.responses).map(Number)) {
      if (status === 401)
        await walk.check(
          operation.operationId,
          await send(callers.anon, method, url, callers.origin, operation.requestBody ? { data: {} } : {}),
          401,
        );
      if (status === 403 && operation.requestBody && !byAgent)
        await walk.check(operation.operationId, await caller(signedIn, { data: {}, origin: false }), 403);
      if (status === 403 && !operation.requestBody)
        await walk.check(operation.operationId, await caller(callers.stranger), 403);
      const bad = GENERIC_BODIES[status];
      if (bad && operation.requestBody)
        await walk.check(operation.operationId, await caller(byAgent ? callers.anon : signedIn, { raw: bad }), status);
    }
  }
}

test('the OpenAPI document is public, valid JSON, and served at 127.0.0.1 too', async ({ baseURL }) => {
  const direct = baseURL!.replace('localhost', '127.0.0.1');
  const anon = await playwrightRequest.newContext({ baseURL: direct });
  const response = await anon.get('/api/v1/openapi.json', { maxRedirects: 0 });
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toMatch(/^application\/json/);
  const document = (await response.json()) as Document;
  expect(document.openapi).toMatch(/^3\.1\./);
  expect(Object.keys(document.paths)).toContain('/api/v1/proposals');
  await anon.dispose();
});

test('every documented status of every operation is produced live and matches its schema', async ({
  baseURL,
  request,
}) => {
  // About 1,300 requests (the rate limit alone needs 1,200): half a minute on an idle machine, more beside other suites.
  test.setTimeout(180_000);
  const origin = baseURL!;
  const anon = await playwrightRequest.newContext({ baseURL: origin });
  const [carol, alice] = await Promise.all([
    apiSession(origin, 'carol@acme.test'),
    apiSession(origin, 'alice@acme.test'),
  ]);
  const walk = new Walk((await (await anon.get('/api/v1/openapi.json')).json()) as Document);
  const check = (operationId: string, response: APIResponse, status: number) =>
    walk.check(operationId, response, status);
  const as = (api: APIRequestContext, operationId: string, id?: string, options?: Send) => {
    const { path, method } = walk.find(operationId);
    return send(api, method, withIds(path, id), origin, options);
  };
  const asAgent = (key: string, operationId: string, id?: string, options: Send = {}) =>
    as(anon, operationId, id, { ...options, headers: bearer(key) });
  /** Proposals the walk leaves pending, rejected at the end so no other spec's queue sees them. */
  const leftPending: { id: string; payloadHash: string }[] = [];

  await test.step('agent API', async () => {
    const envelope = {
      requestId: uniqueRequestId('openapi'),
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
      evidenceRefs: [],
    };
    const created = await asAgent(agentKey('acme'), 'createProposal', undefined, { data: envelope });
    await check('createProposal', created, 201);
    await check(
      'createProposal',
      await asAgent(agentKey('acme'), 'createProposal', undefined, { data: envelope }),
      200,
    );
    await check(
      'createProposal',
      await asAgent(agentKey('acme'), 'createProposal', undefined, {
        data: { ...envelope, args: { sku: 'filter-blue', quantity: 2 } },
      }),
      409,
    );
    // globex's SKU, from an acme key: the same 403 as a resource that does not exist.
    await check(
      'createProposal',
      await asAgent(agentKey('acme'), 'createProposal', undefined, {
        data: { ...envelope, requestId: uniqueRequestId('openapi'), args: { sku: 'filter-green', quantity: 1 } },
      }),
      403,
    );
    const { id, payloadHash } = ((await created.json()) as { proposal: { id: string; payloadHash: string } }).proposal;
    leftPending.push({ id, payloadHash });
    await check('getProposal', await asAgent(agentKey('acme'), 'getProposal', id), 200);
    await check('getProposal', await as(carol, 'getProposal', id), 200);
    await check('getProposal', await asAgent(agentKey('acme'), 'getProposal', 'prp_nope'), 404);
    await check('listContracts', await asAgent(agentKey('acme'), 'listContracts'), 200);
    await check('listContracts', await as(carol, 'listContracts'), 200);
  });

  await test.step('operator API on proposals', async () => {
    const rejected = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
    const rejection = { decision: 'reject', payloadHash: rejected.payloadHash, reason: 'Needs more evidence' };
    await check('decideProposal', await as(alice, 'decideProposal', rejected.id, { data: rejection }), 200);
    await check('decideProposal', await as(alice, 'decideProposal', rejected.id, { data: rejection }), 409);
    await check('decideProposal', await as(alice, 'decideProposal', 'prp_nope', { data: rejection }), 404);
    await check('getEvidenceBundle', await as(alice, 'getEvidenceBundle', rejected.id), 200);
    await check('getEvidenceBundle', await as(alice, 'getEvidenceBundle', 'prp_nope'), 404);

    const extended = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
    await check('extendProposal', await as(alice, 'extendProposal', extended.id, { data: {} }), 200);
    await check('extendProposal', await as(alice, 'extendProposal', extended.id, { data: {} }), 409);
    await check('extendProposal', await as(alice, 'extendProposal', 'prp_nope', { data: {} }), 404);
    await check('recheckProposal', await as(alice, 'recheckProposal', extended.id, { data: {} }), 200);
    await check('recheckProposal', await as(alice, 'recheckProposal', 'prp_nope', { data: {} }), 404);
    // A pending proposal whose resource did not move has nothing to re-propose.
    await check('requestReproposal', await as(alice, 'requestReproposal', extended.id, { data: {} }), 409);
    await check('requestReproposal', await as(alice, 'requestReproposal', 'prp_nope', { data: {} }), 404);

    const revised = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
    const edit = { args: { sku: 'filter-blue', quantity: 2 }, reason: 'Customer asked for two' };
    const revision = await as(alice, 'reviseProposal', revised.id, { data: edit });
    await check('reviseProposal', revision, 201);
    leftPending.push((await revision.json()) as { id: string; payloadHash: string });
    // The revision replaced (cancelled) the proposal it edited.
    await check('reviseProposal', await as(alice, 'reviseProposal', revised.id, { data: edit }), 409);
    await check('reviseProposal', await as(alice, 'reviseProposal', 'prp_nope', { data: edit }), 404);

    leftPending.push(extended);
  });

  await test.step('standing grants (made, refused, revoked: none outlives the step)', async () => {
    const source = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
    expect(
      (
        await as(alice, 'decideProposal', source.id, { data: { decision: 'approve', payloadHash: source.payloadHash } })
      ).status(),
    ).toBe(200);
    const terms = { proposalId: source.id, minutes: 15, maxCount: 1, sameResource: true, reason: 'OpenAPI walk' };
    const made = await as(alice, 'createGrant', undefined, { data: terms });
    await check('createGrant', made, 201);
    const grant = (await made.json()) as { id: string };
    const dave = await apiSession(origin, 'dave@acme.test');
    try {
      await check('createGrant', await as(alice, 'createGrant', undefined, { data: terms }), 409);
      await check(
        'createGrant',
        await as(alice, 'createGrant', undefined, { data: { ...terms, proposalId: 'prp_nope' } }),
        404,
      );
      await check('createGrant', await as(dave, 'createGrant', undefined, { data: terms }), 403);
      await check('listGrants', await as(dave, 'listGrants'), 200);
      await check('listGrants', await alice.get('/api/v1/grants?state=old'), 400);
      await check('revokeGrant', await as(dave, 'revokeGrant', grant.id, { data: {} }), 403);
      await check('revokeGrant', await as(alice, 'revokeGrant', 'g_nope', { data: {} }), 404);
    } finally {
      await check(
        'revokeGrant',
        await as(alice, 'revokeGrant', grant.id, { data: { reason: 'OpenAPI walk done' } }),
        200,
      );
      await dave.dispose();
    }
    await check('revokeGrant', await as(alice, 'revokeGrant', grant.id, { data: {} }), 409);
  });

  await test.step('the executor: a command of an approved proposal replayed, misaddressed, tampered with, and held while paused', async () => {
    const held = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
    expect(
      (
        await as(alice, 'decideProposal', held.id, { data: { decision: 'approve', payloadHash: held.payloadHash } })
      ).status(),
    ).toBe(200);
    type Executed = { execution: { status: string } | null; command: { jws: string; scope: string } | null };
    let executed: Executed | undefined;
    await expect
      .poll(
        async () => {
          executed = (await (await as(alice, 'getProposal', held.id)).json()) as Executed;
          return executed.execution?.status;
        },
        { timeout: 30_000, intervals: [250] },
      )
      .toBe('succeeded');
    // With its receipt, which must be one of the actions' receipt schemas.
    await check('getProposal', await as(alice, 'getProposal', held.id), 200);
    const { jws, scope } = executed!.command!;
    const execute = (to: string, raw: { type: string; body: string }) =>
      send(anon, 'post', `/api/executor/${to}`, origin, { raw, origin: false });
    const signed = (body: string) => ({ type: 'application/jose', body });
    await check('executeCommand', await execute(scope, signed(jws)), 200);
    await check('executeCommand', await execute(scope, signed('not a command')), 400);
    const [header, claims, signature] = jws.split('.');
    const flipped = `${signature!.slice(0, 10)}${signature![10] === 'A' ? 'B' : 'A'}${signature!.slice(11)}`;
    await check('executeCommand', await execute(scope, signed(`${header}.${claims}.${flipped}`)), 401);
    await check('executeCommand', await execute(scope === 'inventory' ? 'payments' : 'inventory', signed(jws)), 403);
    await check('executeCommand', await execute('nowhere', signed(jws)), 404);
    await check('executeCommand', await execute(scope, signed(BIG)), 413);
    await check('executeCommand', await execute(scope, { type: 'text/plain', body: jws }), 415);
    expect(
      (await as(carol, 'pauseExecutions', undefined, { data: { reason: 'OpenAPI walk: the executor' } })).status(),
    ).toBe(200);
    const paused = await execute(scope, signed(jws));
    expect((await as(carol, 'resumeExecutions', undefined, { data: {} })).status()).toBe(200);
    await check('executeCommand', paused, 503);
  });

  await test.step('the MCP server', async () => {
    const accept = { accept: 'application/json, text/event-stream' };
    const message = (data: Json, headers: Record<string, string> = accept) =>
      as(anon, 'mcpMessage', undefined, { data, headers: { ...bearer(agentKey('acme')), ...headers }, origin: false });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'openapi-walk', version: '1.0.0' },
      },
    };
    await check('mcpMessage', await message(initialize), 200);
    await check('mcpMessage', await message({ jsonrpc: '2.0', method: 'notifications/initialized' }), 202);
    await check('mcpMessage', await message(initialize, { accept: 'application/json' }), 406);
    await check('mcpMessage', await message(initialize, { ...accept, origin: 'https://evil.test' }), 403);
  });

  await test.step('queue, audit and public documents', async () => {
    await check('getQueue', await as(alice, 'getQueue'), 200);
    await check('getQueue', await alice.get('/api/v1/queue?group=nobody'), 400);
    await check('getQueue', await alice.get('/api/v1/queue?tenant=tnt_nope'), 404);
    await check('exportAuditEvents', await carol.get('/api/v1/audit/events?format=jsonl'), 200);
    await check('exportAuditEvents', await carol.get('/api/v1/audit/events?format=csv&outcome=rejected'), 200);
    await check('exportAuditEvents', await carol.get('/api/v1/audit/events'), 400);
    await check('getAuditCheckpoint', await as(alice, 'getAuditCheckpoint'), 200);
    await check('getAuditInclusionProof', await alice.get('/api/v1/audit/proofs/inclusion?seq=1&size=2'), 200);
    await check(
      'getAuditInclusionProof',
      await alice.get('/api/v1/audit/proofs/inclusion?seq=1&size=2&tenant=globex'),
      400,
    );
    await check('getAuditConsistencyProof', await alice.get('/api/v1/audit/proofs/consistency?from=1&to=2'), 200);
    await check('getAuditConsistencyProof', await alice.get('/api/v1/audit/proofs/consistency?from=2&to=1'), 400);
    await check('getOversight', await alice.get('/api/v1/oversight?days=30'), 200);
    await check('getOversight', await alice.get('/api/v1/oversight?days=91'), 422);
    for (const operationId of ['getJwks', 'getHealth', 'getOpenApiDocument'])
      await check(operationId, await as(anon, operationId), 200);
  });

  await test.step('agent keys: issue, rate limit, rotate, revoke, and a revoked key makes its proposal stale', async () => {
    const newKey = (label: string) =>
      as(carol, 'issueAgentKey', undefined, {
        data: { name: `openapi-${label}-${Date.now()}`, actions: ['hold_stock'], grants: { warehouses: ['north'] } },
      });
    const issued = await newKey('walk');
    await check('issueAgentKey', issued, 201);
    const walker = (await issued.json()) as { agentKey: { id: string }; key: string };
    await check('listAgentKeys', await as(carol, 'listAgentKeys'), 200);

    // A proposal of that key, then the key revoked: approving it re-checks Authority and finds it stale.
    const proposed = await asAgent(walker.key, 'createProposal', undefined, {
      data: {
        requestId: uniqueRequestId('openapi'),
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku: 'filter-blue', quantity: 1 },
      },
    });
    const stale = ((await proposed.json()) as { proposal: { id: string; payloadHash: string } }).proposal;
    await check('revokeAgentKey', await as(carol, 'revokeAgentKey', walker.agentKey.id, { data: {} }), 200);
    await check('revokeAgentKey', await as(carol, 'revokeAgentKey', walker.agentKey.id, { data: {} }), 409);
    await check('revokeAgentKey', await as(carol, 'revokeAgentKey', 'key_nope', { data: {} }), 404);
    expect(
      (
        await as(alice, 'decideProposal', stale.id, { data: { decision: 'approve', payloadHash: stale.payloadHash } })
      ).status(),
    ).toBe(409);
    await check(
      'requestReproposal',
      await as(alice, 'requestReproposal', stale.id, { data: { note: 'Your key was rotated; propose again.' } }),
      201,
    );

    const rotating = await newKey('rotate');
    const rotated = (await rotating.json()) as { agentKey: { id: string }; key: string };
    const replacement = await as(carol, 'rotateAgentKey', rotated.agentKey.id, { data: { overlapMinutes: 0 } });
    await check('rotateAgentKey', replacement, 201);
    await check(
      'rotateAgentKey',
      await as(carol, 'rotateAgentKey', rotated.agentKey.id, { data: { overlapMinutes: 0 } }),
      409,
    );
    await check('rotateAgentKey', await as(carol, 'rotateAgentKey', 'key_nope', { data: { overlapMinutes: 0 } }), 404);

    // The rate limit, on a key of its own: requests past the minute's budget are 429 with Retry-After.
    const limited = (await (await newKey('rate')).json()) as { agentKey: { id: string }; key: string };
    let tooMany: APIResponse | undefined;
    for (let sent = 0; !tooMany && sent < 4000; sent += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, () =>
          asAgent(limited.key, 'createProposal', undefined, { raw: GENERIC_BODIES[415]! }),
        ),
      );
      tooMany = batch.find((response) => response.status() === 429);
    }
    expect(tooMany?.headers()['retry-after']).toMatch(/^\d+$/);
    await check('createProposal', tooMany!, 429);
    // The MCP server spends the same budget: one message more is a 429 too (a new minute may have begun, so until one is).
    let mcpTooMany: APIResponse | undefined;
    for (let sent = 0; !mcpTooMany && sent < 4000; sent += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, () => asAgent(limited.key, 'mcpMessage', undefined, { raw: GENERIC_BODIES[415]! })),
      );
      mcpTooMany = batch.find((response) => response.status() === 429);
    }
    await check('mcpMessage', mcpTooMany!, 429);
    for (const { agentKey: left } of [limited, (await replacement.json()) as { agentKey: { id: string } }]) {
      expect((await as(carol, 'revokeAgentKey', left.id, { data: {} })).status()).toBe(200);
    }
  });

  await test.step('contract rollout', async () => {
    await check('listContractRollout', await as(carol, 'listContractRollout'), 200);
    // The status v1 already has: allowed, and nothing changes.
    await check(
      'setContractStatus',
      await carol.post('/api/v1/admin/contracts/hold_stock/1', { headers: { origin }, data: { status: 'current' } }),
      200,
    );
    await check(
      'setContractStatus',
      await carol.post('/api/v1/admin/contracts/hold_stock/1', { headers: { origin }, data: { status: 'retired' } }),
      409,
    );
    await check(
      'setContractStatus',
      await carol.post('/api/v1/admin/contracts/hold_stock/99', { headers: { origin }, data: { status: 'shadow' } }),
      404,
    );
  });

  const newcomer = { email: `openapi-${Date.now()}@example.test`, password: 'a long walk password' };
  await test.step('members and invitations', async () => {
    await check('listMembers', await as(carol, 'listMembers'), 200);
    const invited = await as(carol, 'inviteMember', undefined, {
      data: { email: newcomer.email, name: 'OpenAPI Walk', role: 'viewer' },
    });
    await check('inviteMember', invited, 201);
    await check(
      'inviteMember',
      await as(carol, 'inviteMember', undefined, { data: { email: 'alice@acme.test', name: 'Alice', role: 'viewer' } }),
      409,
    );
    const token = ((await invited.json()) as { invitationUrl: string }).invitationUrl.split('/invite/')[1]!;
    // The link alone sets no password: the code emailed to the invited address comes first.
    await check(
      'acceptInvitation',
      await as(anon, 'acceptInvitation', undefined, { data: { token, password: newcomer.password } }),
      422,
    );
    await check('sendInvitationCode', await as(anon, 'sendInvitationCode', undefined, { data: { token } }), 200);
    await check('sendInvitationCode', await as(anon, 'sendInvitationCode', undefined, { data: { token } }), 429);
    await check(
      'sendInvitationCode',
      await as(anon, 'sendInvitationCode', undefined, { data: { token: 'A'.repeat(43) } }),
      404,
    );
    await check(
      'acceptInvitation',
      await as(anon, 'acceptInvitation', undefined, {
        data: { token, code: '000000', password: 'a long walk password', sso: true },
      }),
      422,
    );
    const acceptance = { token, code: await codeEmailedTo(anon, newcomer.email), password: newcomer.password };
    await check('acceptInvitation', await as(anon, 'acceptInvitation', undefined, { data: acceptance }), 200);
    await check('acceptInvitation', await as(anon, 'acceptInvitation', undefined, { data: acceptance }), 410);
    await check('sendInvitationCode', await as(anon, 'sendInvitationCode', undefined, { data: { token } }), 410);
    await check(
      'acceptInvitation',
      await as(anon, 'acceptInvitation', undefined, {
        data: { token: 'A'.repeat(43), password: 'a long walk password' },
      }),
      404,
    );

    // Someone with an account in another tenant signs in to accept; single sign-on for a new account is a 409.
    const erin = await as(carol, 'inviteMember', undefined, {
      data: { email: 'erin@globex.test', name: 'Erin', role: 'viewer' },
    });
    const erinInvite = (await erin.json()) as { invitationUrl: string; invitation: { id: string } };
    await check(
      'acceptInvitation',
      await as(anon, 'acceptInvitation', undefined, {
        data: { token: erinInvite.invitationUrl.split('/invite/')[1]!, sso: true },
      }),
      409,
    );
    await check('cancelInvitation', await as(carol, 'cancelInvitation', erinInvite.invitation.id), 200);
    await check('cancelInvitation', await as(carol, 'cancelInvitation', erinInvite.invitation.id), 404);

    const members = (await (await as(carol, 'listMembers')).json()) as { members: { userId: string; email: string }[] };
    const userId = members.members.find((member) => member.email === newcomer.email)!.userId;
    const carolId = members.members.find((member) => member.email === 'carol@acme.test')!.userId;
    await check('changeMemberRole', await as(carol, 'changeMemberRole', userId, { data: { role: 'approver' } }), 200);
    await check('changeMemberRole', await as(carol, 'changeMemberRole', carolId, { data: { role: 'approver' } }), 409);
    await check(
      'changeMemberRole',
      await as(carol, 'changeMemberRole', 'usr_nope', { data: { role: 'approver' } }),
      404,
    );
    await check('removeMember', await as(carol, 'removeMember', userId), 200);
    await check('removeMember', await as(carol, 'removeMember', userId), 404);
    await check('removeMember', await as(carol, 'removeMember', carolId), 409);
  });

  await test.step('notifications', async () => {
    await check('getNotifications', await as(carol, 'getNotifications'), 200);
    const { settings } = (await (await as(carol, 'getNotifications')).json()) as { settings: Json };
    await check(
      'putNotificationSettings',
      await as(carol, 'putNotificationSettings', undefined, { data: settings }),
      200,
    );
    await check(
      'putOversightSettings',
      await as(carol, 'putOversightSettings', undefined, {
        data: { minDecisions: 20, approvalRatePercent: 98, medianDwellSeconds: 5 },
      }),
      200,
    );
    // Channels of their own that hear only an event the walk never causes, disabled at the end.
    const events = ['audit.chain_broken'];
    const created = await as(carol, 'createChannel', undefined, {
      data: { kind: 'email', target: 'openapi-walk@example.test', events },
    });
    await check('createChannel', created, 201);
    const email = ((await created.json()) as { channel: { id: string } }).channel.id;
    await check('changeChannel', await as(carol, 'changeChannel', email, { data: { target: 'not an address' } }), 422);
    await check('changeChannel', await as(carol, 'changeChannel', email, { data: { enabled: false } }), 200);
    await check('changeChannel', await as(carol, 'changeChannel', 'chn_nope', { data: { enabled: false } }), 404);
    // A disabled channel's test is dead at once: the one delivery a person may retry.
    const tested = await as(carol, 'testChannel', email);
    await check('testChannel', tested, 200);
    const dead = ((await tested.json()) as { delivery: { id: string; status: string } }).delivery;
    expect(dead.status).toBe('dead');
    await check('testChannel', await as(carol, 'testChannel', 'chn_nope'), 404);
    await check('retryDelivery', await as(carol, 'retryDelivery', dead.id), 200);
    await check('retryDelivery', await as(carol, 'retryDelivery', 'msg_nope'), 404);
    // A name that resolves nowhere is saved (each delivery resolves it again): the test fails, and waits for a retry, pending, not dead.
    const unreachable = (await (
      await as(carol, 'createChannel', undefined, {
        data: { kind: 'webhook', target: 'http://unreachable.invalid/hook', events },
      })
    ).json()) as { channel: { id: string } };
    const pending = (
      (await (await as(carol, 'testChannel', unreachable.channel.id)).json()) as {
        delivery: { id: string; status: string };
      }
    ).delivery;
    expect(pending.status).toBe('pending');
    await check('retryDelivery', await as(carol, 'retryDelivery', pending.id), 409);
    await as(carol, 'changeChannel', unreachable.channel.id, { data: { enabled: false } });
  });

  await test.step('emergency stop', async () => {
    await check('getExecutions', await as(carol, 'getExecutions'), 200);
    // Paused and resumed at once: the other specs' commands wait a moment at most.
    await check(
      'pauseExecutions',
      await as(carol, 'pauseExecutions', undefined, { data: { reason: 'OpenAPI walk' } }),
      200,
    );
    await check('resumeExecutions', await as(carol, 'resumeExecutions', undefined, { data: {} }), 200);
  });

  await test.step('routing policies', async () => {
    const listed = await as(alice, 'getPolicies');
    await check('getPolicies', listed, 200);
    const { policies } = (await listed.json()) as {
      policies: { action: string; version: number; rules: unknown[]; expiryHours: number }[];
    };
    const hold = () => policies.find((policy) => policy.action === 'hold_stock')!;
    const note = 'OpenAPI walk: nothing changes';
    await check('savePolicies', await as(carol, 'savePolicies', undefined, { data: { policies, note } }), 200);
    await check('savePolicies', await as(carol, 'savePolicies', undefined, { data: { policies } }), 422);
    const [first] = policies;
    await check(
      'savePolicies',
      await as(carol, 'savePolicies', undefined, {
        data: { policies: [{ ...first, version: first!.version + 1 }], note },
      }),
      409,
    );
    await check(
      'planPolicies',
      await as(carol, 'planPolicies', undefined, {
        data: { policies: [{ ...hold(), expiryHours: hold().expiryHours === 24 ? 23 : 24 }] },
      }),
      200,
    );
    await check(
      'planPolicies',
      await as(carol, 'planPolicies', undefined, { data: { policies: [{ ...first, version: first!.version + 1 }] } }),
      409,
    );
    await check('planPolicies', await as(carol, 'planPolicies', undefined, { data: { policies: [] } }), 422);
    const preview = (sku: string) => ({
      action: 'hold_stock',
      rules: hold().rules,
      expiryHours: hold().expiryHours,
      sample: { args: { sku, quantity: 1 } },
    });
    await check('previewPolicy', await as(carol, 'previewPolicy', undefined, { data: preview('filter-blue') }), 200);
    await check('previewPolicy', await as(carol, 'previewPolicy', undefined, { data: preview('no-such-sku') }), 422);
  });

  await test.step('action definitions', async () => {
    // A name of the walk's own, a new title each run: every run publishes a version, and no other spec's action changes.
    const document = {
      ...(JSON.parse(fs.readFileSync('demo/actions/hold_stock.json', 'utf8')) as Json),
      name: 'openapi_walk',
      title: `OpenAPI walk ${Date.now()}`,
      // At the origin the e2e server allows (ACTION_ALLOWED_ORIGINS, playwright.config.ts).
      resolve: 'http://127.0.0.1:4795/openapi_walk/resolve',
      executor: 'http://127.0.0.1:4795/openapi_walk/execute',
    };
    const note = 'OpenAPI walk';
    await check('listActionDefinitions', await as(carol, 'listActionDefinitions'), 200);
    await check(
      'planActionDefinition',
      await as(carol, 'planActionDefinition', undefined, { data: { document } }),
      200,
    );
    const published = await as(carol, 'publishActionDefinition', undefined, { data: { document, note } });
    await check('publishActionDefinition', published, 201);
    const { version } = (await published.json()) as { version: number };
    await check(
      'publishActionDefinition',
      await as(carol, 'publishActionDefinition', undefined, { data: { document, note } }),
      200,
    );
    // Planned against the version before this one: someone (this walk) published since.
    await check(
      'publishActionDefinition',
      await as(carol, 'publishActionDefinition', undefined, {
        data: { document: { ...document, title: 'OpenAPI walk, stale' }, note, baseVersion: version - 1 },
      }),
      409,
    );
    await check(
      'publishActionDefinition',
      await as(carol, 'publishActionDefinition', undefined, {
        data: { document: { ...document, colour: 'red' }, note },
      }),
      422,
    );
    await check('getActionDefinition', await as(carol, 'getActionDefinition', 'openapi_walk'), 200);
    await check('getActionDefinition', await as(carol, 'getActionDefinition', 'never_published'), 404);
    // The evidence resolver: read, then set to what it is (none), which changes nothing.
    await check('getEvidenceSettings', await as(carol, 'getEvidenceSettings'), 200);
    await check(
      'putEvidenceSettings',
      await as(carol, 'putEvidenceSettings', undefined, { data: { resolver: null } }),
      200,
    );
  });

  // The newcomer, removed above, still has an account: signed in, a member of no tenant.
  const stranger = await playwrightRequest.newContext({ baseURL: origin });
  await postCredentials(stranger, newcomer.email, newcomer.password);
  await test.step('proving an address with an emailed code', async () => {
    // The newcomer proved the address with the invitation's code already.
    await check('sendEmailCode', await as(stranger, 'sendEmailCode', undefined, { data: {} }), 409);
    // Dave: no code yet, then one, then one too soon; five wrong tries spend it.
    const dave = await apiSession(origin, 'dave@acme.test');
    await check('verifyEmailCode', await as(dave, 'verifyEmailCode', undefined, { data: { code: '000000' } }), 410);
    await check('sendEmailCode', await as(dave, 'sendEmailCode', undefined, { data: {} }), 200);
    await check('sendEmailCode', await as(dave, 'sendEmailCode', undefined, { data: {} }), 429);
    const code = await codeEmailedTo(anon, 'dave@acme.test');
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++)
      await check('verifyEmailCode', await as(dave, 'verifyEmailCode', undefined, { data: { code: wrong } }), 422);
    await check('verifyEmailCode', await as(dave, 'verifyEmailCode', undefined, { data: { code } }), 429);
    await dave.dispose();
    // Erin proves hers (an account the CLI made keeps its password). (Not alice: e2e/oidc.spec.ts proves hers by single sign-on.)
    const erin = await apiSession(origin, 'erin@globex.test');
    await check('sendEmailCode', await as(erin, 'sendEmailCode', undefined, { data: {} }), 200);
    await check(
      'verifyEmailCode',
      await as(erin, 'verifyEmailCode', undefined, { data: { code: await codeEmailedTo(anon, 'erin@globex.test') } }),
      200,
    );
    await check('sendEmailCode', await as(erin, 'sendEmailCode', undefined, { data: {} }), 409);
    await erin.dispose();
  });
  await test.step('passkeys (what needs no authenticator)', async () => {
    await check('listMyPasskeys', await as(alice, 'listMyPasskeys'), 200);
    await check(
      'passkeyRegistrationOptions',
      await as(alice, 'passkeyRegistrationOptions', undefined, { data: {} }),
      200,
    );
    await check('removeMyPasskey', await as(alice, 'removeMyPasskey', 'psk_nope', { data: {} }), 404);
    await check('resetPasskey', await as(carol, 'resetPasskey', 'psk_nope', { data: {} }), 404);
    // acme's setting as it is (off), so no later approval needs a passkey; the change itself is e2e/passkeys-setting.spec.ts's.
    await check(
      'putPasskeySettings',
      await as(carol, 'putPasskeySettings', undefined, { data: { requirePasskeys: false } }),
      200,
    );
    const members = (await (await as(carol, 'listMembers')).json()) as { members: { userId: string; email: string }[] };
    const aliceId = members.members.find((member) => member.email === 'alice@acme.test')!.userId;
    await check('listMemberPasskeys', await as(carol, 'listMemberPasskeys', aliceId), 200);
    await check('listMemberPasskeys', await as(carol, 'listMemberPasskeys', 'usr_nope'), 404);
    await check(
      'decisionChallenge',
      await as(alice, 'decisionChallenge', 'prp_nope', { data: { decision: 'approve' } }),
      404,
    );
  });
  await test.step('the statuses every operation of its kind answers alike', () =>
    walkGenericStatuses(walk, { anon, carol, stranger, origin }));

  for (const proposal of leftPending) {
    const rejected = await as(alice, 'decideProposal', proposal.id, {
      data: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'OpenAPI walk: clean-up' },
    });
    expect(rejected.status()).toBe(200);
  }
  expect(
    walk.documented().filter((pair) => !walk.exercised.has(pair) && !(pair in PRODUCED_ELSEWHERE)),
    'documented but not produced live',
  ).toStrictEqual([]);
  expect(
    Object.keys(PRODUCED_ELSEWHERE).filter((pair) => !walk.documented().includes(pair)),
    'produced elsewhere but no longer documented',
  ).toStrictEqual([]);
  await Promise.all([anon, carol, alice, stranger].map((context) => context.dispose()));
});
