import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CommandClaims, signCommand } from '@/lib/commands/mint';
import { payloadHash } from '@/lib/payload-hash';
import { type CommandKeys, generateSigningJwk, loadCommandKeys } from '@/lib/signing/keys';
import { REQUEST_PROOF_HEADER, signRequest } from '@/lib/signing/request-proof';
import {
  type ExecuteResult,
  executorHandler,
  nodeHandler,
  type ResolveRequest,
  resolverHandler,
  type CommandClaims as VerifiedClaims,
  type WebHandler,
} from './index';

// A team's resolver and executor built with the helpers, on real HTTP servers, called the way
// Countersign calls them: signed requests, signed commands, replays, refusals and reconciliation.
const ISSUER = 'https://countersign.example';
let keys: CommandKeys;
let stranger: CommandKeys;
const servers: http.Server[] = [];
let jwksUrl: string;
let executorUrl: string;
let resolverUrl: string;

let effects: string[] = [];
let answer: (claims: VerifiedClaims) => ExecuteResult = (claims) => ({
  receipt: { deploymentId: `dep_${effects.length}`, version: claims.args.version },
});
const stored = new Map<string, Record<string, unknown>>();

async function listen(handler?: http.RequestListener): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A server whose handler needs its own URL, known only once it listens. */
async function serviceAt(path: string, make: (url: string) => WebHandler): Promise<string> {
  const { server, base } = await listen();
  server.on('request', nodeHandler(make(`${base}${path}`)));
  return `${base}${path}`;
}

beforeAll(async () => {
  keys = await loadCommandKeys([await generateSigningJwk()]);
  stranger = await loadCommandKeys([await generateSigningJwk()]);
  const jwks = JSON.stringify({ keys: keys.jwks });
  jwksUrl = `${(await listen((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks))).base}/.well-known/jwks.json`;
  executorUrl = await serviceAt('/actions/deploy/execute', (url) =>
    executorHandler({
      jwks: jwksUrl,
      issuer: ISSUER,
      url,
      scope: 'deployments',
      execute: async (claims) => {
        effects.push(claims.idempotencyKey);
        return answer(claims);
      },
      lookup: (commandId) => stored.get(commandId),
    }),
  );
  resolverUrl = await serviceAt('/resolve', (url) =>
    resolverHandler({
      jwks: { keys: keys.jwks },
      issuer: ISSUER,
      url,
      resolve: (asked: ResolveRequest) =>
        asked.tenant === 'acme' && asked.args.service === 'api'
          ? {
              tenant: 'acme',
              resourceKey: 'service:api',
              facts: { replicas: 3, frozen: false },
              detail: 'api (3 replicas)',
            }
          : undefined,
    }),
  );
});
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));
beforeEach(() => {
  effects = [];
  answer = (claims) => ({ receipt: { deploymentId: `dep_${effects.length}`, version: claims.args.version } });
});

let minted = 0;
function command(change: Partial<CommandClaims> = {}, proposal = `prp_${minted}`, key = keys.signing): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  const fields = {
    iss: ISSUER,
    aud: 'executor:deployments',
    sub: proposal,
    jti: `cmd_${(minted += 1)}`,
    iat,
    nbf: iat,
    exp: iat + 300,
    tenant: 'acme',
    action: 'create_deployment',
    contractVersion: 1,
    args: { service: 'api', version: '1.4.0' },
    evidenceRefs: [],
    idempotencyKey: `cs.${proposal}`,
    ...change,
  };
  const { action, contractVersion, tenant, args, evidenceRefs } = fields;
  const hash = payloadHash({ action, contractVersion, tenantId: tenant, args, evidenceRefs });
  return signCommand({ payloadHash: hash, ...fields }, key);
}

type Call = { url?: string; method?: 'GET' | 'POST'; body?: string; proof?: string | null; signedBody?: string };
async function call(target: string, { url = target, method = 'POST', body = '', proof, signedBody }: Call) {
  const signature =
    proof === undefined ? await signRequest({ url, method, body: signedBody ?? body }, keys.signing, ISSUER) : proof;
  const response = await fetch(target, {
    method,
    headers: {
      'content-type': 'application/jose',
      ...(signature === null ? {} : { [REQUEST_PROOF_HEADER]: signature }),
    },
    ...(method === 'POST' ? { body } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const execute = async (jws: string, change: Call = {}) => call(executorUrl, { body: jws, ...change });

describe('executorHandler', () => {
  it('executes a command once and answers the same receipt to a replay and to a re-minted command', async () => {
    const jws = await command({}, 'prp_replay');
    const first = await execute(jws);
    expect(first).toEqual({ status: 200, body: { receipt: { deploymentId: 'dep_1', version: '1.4.0' } } });
    expect(await execute(jws)).toEqual(first);
    expect(await execute(await command({}, 'prp_replay'))).toEqual(first);
    const together = await Promise.all(Array.from({ length: 5 }, async () => execute(await command({}, 'prp_many'))));
    expect(new Set(together.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(effects).toEqual(['cs.prp_replay', 'cs.prp_many']);
  });

  it('answers a business refusal 422 with nothing remembered, so a later delivery runs again', async () => {
    answer = () => ({ refused: { code: 'service_frozen', message: 'The service is frozen.' } });
    const jws = await command({}, 'prp_refused');
    expect(await execute(jws)).toEqual({
      status: 422,
      body: { error: { code: 'service_frozen', message: 'The service is frozen.' } },
    });
    answer = () => {
      throw new Error('the deploy API is down');
    };
    expect(await execute(jws)).toMatchObject({ status: 500, body: { error: { code: 'internal_error' } } });
    answer = () => ({ receipt: { deploymentId: 'dep_late' } });
    expect(await execute(jws)).toEqual({ status: 200, body: { receipt: { deploymentId: 'dep_late' } } });
    expect(effects).toHaveLength(3);
  });

  it('answers reconciliation: the receipt of an executed command, the store through lookup, else 404', async () => {
    const jws = await command({}, 'prp_reconcile');
    const { body } = await execute(jws);
    const commandId = `cmd_${minted}`;
    const get = (id: string) => call(`${executorUrl}/${id}`, { method: 'GET' });
    expect(await get(commandId)).toEqual({ status: 200, body });
    stored.set('cmd_before_restart', { deploymentId: 'dep_0' });
    expect(await get('cmd_before_restart')).toEqual({ status: 200, body: { receipt: { deploymentId: 'dep_0' } } });
    expect(await get('cmd_never')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const proofForAnother = await signRequest(
      { url: `${executorUrl}/cmd_other`, method: 'GET', body: '' },
      keys.signing,
      ISSUER,
    );
    expect(await call(`${executorUrl}/${commandId}`, { method: 'GET', proof: proofForAnother })).toMatchObject({
      status: 401,
      body: { error: { code: 'wrong_audience' } },
    });
  });

  const proofOf = (body: string, key = keys.signing, issuer = ISSUER, at = new Date()) =>
    signRequest({ url: executorUrl, method: 'POST', body }, key, issuer, at);
  const unproven: [string, string, (jws: string) => Promise<Call>][] = [
    ['no proof', 'missing_signature', async () => ({ proof: null })],
    ['a proof of another body', 'body_mismatch', async () => ({ signedBody: await command() })],
    ['a proof for another URL', 'wrong_audience', async () => ({ url: resolverUrl })],
    [
      'a proof by another issuer',
      'wrong_issuer',
      async (jws) => ({ proof: await proofOf(jws, keys.signing, 'https://evil.example') }),
    ],
    [
      'a proof by a key outside the JWKS',
      'unknown_kid',
      async (jws) => ({ proof: await proofOf(jws, stranger.signing) }),
    ],
    [
      'a proof signed an hour ago',
      'expired',
      async (jws) => ({ proof: await proofOf(jws, keys.signing, ISSUER, new Date(Date.now() - 3_600_000)) }),
    ],
    ['a command as the proof', 'wrong_type', async () => ({ proof: await command() })],
  ];
  it.each(unproven)('refuses 401 %s (%s), with no effect', async (_, code, change) => {
    const jws = await command();
    const answerOf = await execute(jws, await change(jws));
    expect(answerOf).toMatchObject({ status: 401, body: { error: { code } } });
    expect(effects).toEqual([]);
  });

  it('refuses 401 a replayed request proof', async () => {
    const jws = await command();
    const proof = await signRequest({ url: executorUrl, method: 'POST', body: jws }, keys.signing, ISSUER);
    expect((await execute(jws, { proof })).status).toBe(200);
    expect(await execute(jws, { proof })).toMatchObject({ status: 401, body: { error: { code: 'replayed_jti' } } });
  });

  const rejected: [string, string, () => Promise<string>][] = [
    ['a request proof as the command', 'wrong_type', () => proofOf('')],
    ['a command for another scope', 'wrong_audience', () => command({ aud: 'executor:payments' })],
    ['a command of another issuer', 'wrong_issuer', () => command({ iss: 'https://evil.example' })],
    ['an expired command', 'expired', () => command({ iat: 1_700_000_000, nbf: 1_700_000_000, exp: 1_700_000_300 })],
    ['a command by a key outside the JWKS', 'unknown_kid', () => command({}, 'prp_x', stranger.signing)],
    [
      'a tampered command',
      'bad_signature',
      async () => (await command()).replace(/\.[^.]+\./, `.${Buffer.from('{}').toString('base64url')}.`),
    ],
    ['a body that is no JWS', 'malformed', async () => '{"receipt":{}}'],
  ];
  it.each(rejected)('refuses 422 %s (%s), with no effect', async (_, code, token) => {
    expect(await execute(await token())).toMatchObject({ status: 422, body: { error: { code } } });
    expect(effects).toEqual([]);
  });

  it('answers other methods 405, and serves a Next route handler with no adapter', async () => {
    expect((await fetch(executorUrl, { method: 'PUT' })).status).toBe(405);
    expect((await fetch(executorUrl)).status).toBe(405);
    const handler = executorHandler({
      jwks: { keys: keys.jwks },
      issuer: ISSUER,
      url: 'https://svc.example/execute',
      scope: 'deployments',
      execute: () => ({ receipt: { ok: true } }),
      lookup: () => undefined,
    });
    const jws = await command();
    const signature = await signRequest(
      { url: 'https://svc.example/execute', method: 'POST', body: jws },
      keys.signing,
      ISSUER,
    );
    const response = await handler(
      new Request('https://svc.example/execute', {
        method: 'POST',
        headers: { [REQUEST_PROOF_HEADER]: signature },
        body: jws,
      }),
    );
    expect([response.status, await response.json()]).toEqual([200, { receipt: { ok: true } }]);
    // A streamed body with no Content-Length is cut at the cap, before any verification.
    const chunk = new Uint8Array(64 * 1024);
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const flood = await handler(
      new Request('https://svc.example/execute', { method: 'POST', body: endless, duplex: 'half' } as RequestInit),
    );
    expect(flood.status).toBe(413);
    expect(sent).toBeLessThan(2 * 1024 * 1024);
  });
});

describe('resolverHandler', () => {
  const asked = (args: Record<string, unknown>, tenant = 'acme') =>
    JSON.stringify({ tenant, action: 'create_deployment', contractVersion: 1, args });

  it('answers the resource, or 404 for a missing or foreign one', async () => {
    expect(await call(resolverUrl, { body: asked({ service: 'api' }) })).toEqual({
      status: 200,
      body: {
        tenant: 'acme',
        resourceKey: 'service:api',
        facts: { replicas: 3, frozen: false },
        detail: 'api (3 replicas)',
      },
    });
    expect(await call(resolverUrl, { body: asked({ service: 'web' }) })).toMatchObject({ status: 404 });
    expect(await call(resolverUrl, { body: asked({ service: 'api' }, 'globex') })).toMatchObject({ status: 404 });
  });

  const refusals: [string, Call, number, string][] = [
    ['no proof', { body: asked({}), proof: null }, 401, 'missing_signature'],
    [
      'a tampered body',
      { body: asked({ service: 'api' }), signedBody: asked({ service: 'web' }) },
      401,
      'body_mismatch',
    ],
    ['a body that is not the question', { body: '{"tenant":"acme"}' }, 400, 'malformed_request'],
    ['a body that is not JSON', { body: 'tenant=acme' }, 400, 'malformed_request'],
  ];
  it.each(refusals)('refuses %s', async (_, change, status, code) => {
    expect(await call(resolverUrl, change)).toMatchObject({ status, body: { error: { code } } });
  });

  it('refuses a body over 1 MiB (413) before reading it all', async () => {
    expect(await call(resolverUrl, { body: 'x'.repeat(1024 * 1024 + 1) })).toMatchObject({
      status: 413,
      body: { error: { code: 'body_too_large' } },
    });
  });
});
