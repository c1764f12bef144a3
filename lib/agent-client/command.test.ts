import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, type CryptoKey, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import * as server from '@/lib/commands/mint';
import { type CommandClaims, signCommand } from '@/lib/commands/mint';
import { CLOCK_SKEW_SECONDS as SERVER_SKEW } from '@/lib/commands/verify';
import { payloadHash } from '@/lib/payload-hash';
import { type CommandKeys, generateSigningJwk, loadCommandKeys, type PublicJwk } from '@/lib/signing/keys';
import * as serverProof from '@/lib/signing/request-proof';
import { signRequest } from '@/lib/signing/request-proof';
import * as client from './index';
import { remoteKeySet, verifyCommand } from './index';

// The executor's own check of a command, against commands signed exactly as Countersign mints them.
const ISSUER = 'https://countersign.example';
const NOW = new Date('2026-12-07T10:00:00Z');
const IAT = NOW.getTime() / 1000;
let keys: CommandKeys;
let stranger: CommandKeys;
let jwksServer: http.Server;
let published: PublicJwk[] = [];
let jwksFetches = 0;
let jwksUrl: string;

function claims(change: Partial<CommandClaims> = {}): CommandClaims {
  const fields = {
    iss: ISSUER,
    aud: 'executor:deployments',
    sub: 'prp_1',
    jti: 'cmd_1',
    iat: IAT,
    nbf: IAT,
    exp: IAT + 300,
    tenant: 'acme',
    action: 'create_deployment',
    contractVersion: 2,
    args: { service: 'api', version: '1.4.0', note: 'é ünïcode' },
    evidenceRefs: ['ev_1'],
    idempotencyKey: 'cs.prp_1',
    ...change,
  };
  const { action, contractVersion, tenant, args, evidenceRefs } = fields;
  const hash = payloadHash({ action, contractVersion, tenantId: tenant, args, evidenceRefs });
  return { payloadHash: hash, ...fields };
}

const sign = (claimsToSign: object, header: Record<string, unknown>, key: CryptoKey | Uint8Array) =>
  new SignJWT({ ...claimsToSign }).setProtectedHeader({ alg: 'EdDSA', ...header }).sign(key);
const part = (value: unknown) => base64url.encode(JSON.stringify(value));

beforeAll(async () => {
  keys = await loadCommandKeys([await generateSigningJwk()]);
  stranger = await loadCommandKeys([await generateSigningJwk()]);
  published = keys.jwks;
  jwksServer = http.createServer((_, response) => {
    jwksFetches += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => jwksServer.close(() => resolve())));

const options = () => ({ jwks: { keys: keys.jwks }, scope: 'deployments', issuer: ISSUER, now: NOW });

describe("the client's own copy of the protocol's constants", () => {
  it("is the server's", () => {
    expect([client.COMMAND_TYP, client.COMMAND_LIFETIME_SECONDS, client.CLOCK_SKEW_SECONDS]).toEqual([
      server.COMMAND_TYP,
      server.COMMAND_LIFETIME_SECONDS,
      SERVER_SKEW,
    ]);
    expect([client.REQUEST_PROOF_TYP, client.REQUEST_PROOF_HEADER, client.REQUEST_PROOF_LIFETIME_SECONDS]).toEqual([
      serverProof.REQUEST_PROOF_TYP,
      serverProof.REQUEST_PROOF_HEADER,
      serverProof.REQUEST_PROOF_LIFETIME_SECONDS,
    ]);
  });
});

describe('verifyCommand', () => {
  it('answers the claims of a command Countersign signed', async () => {
    const jws = await signCommand(claims(), keys.signing);
    await expect(verifyCommand(jws, options())).resolves.toEqual(claims());
    await expect(verifyCommand(jws, { ...options(), issuer: undefined })).resolves.toMatchObject({ jti: 'cmd_1' });
  });

  it('accepts the 30 s clock skew on both sides', async () => {
    const jws = await signCommand(claims(), keys.signing);
    for (const offset of [-30, 330]) {
      const now = new Date(NOW.getTime() + offset * 1000);
      await expect(verifyCommand(jws, { ...options(), now })).resolves.toMatchObject({ jti: 'cmd_1' });
    }
  });

  const cases: [string, () => Promise<string>, string, Partial<ReturnType<typeof options>>?][] = [
    ['not a compact JWS', async () => 'not-a-jws', 'malformed'],
    ['a header that is not JSON', async () => `${base64url.encode('{')}.${part(claims())}.sig`, 'malformed'],
    [
      'alg none',
      async () => `${part({ alg: 'none', kid: keys.signing.kid, typ: 'countersign-command+jwt' })}.${part(claims())}.`,
      'alg_not_allowed',
    ],
    [
      'alg HS256 (a secret as key)',
      async () =>
        sign(claims(), { alg: 'HS256', kid: keys.signing.kid, typ: 'countersign-command+jwt' }, new Uint8Array(32)),
      'alg_not_allowed',
    ],
    [
      'a jku header',
      async () =>
        sign(
          claims(),
          { kid: keys.signing.kid, typ: 'countersign-command+jwt', jku: 'https://evil.example/jwks' },
          keys.signing.key,
        ),
      'unknown_kid',
    ],
    [
      'an embedded jwk',
      async () =>
        sign(
          claims(),
          { kid: keys.signing.kid, typ: 'countersign-command+jwt', jwk: stranger.jwks[0] },
          stranger.signing.key,
        ),
      'unknown_kid',
    ],
    ['a key outside the JWKS', async () => signCommand(claims(), stranger.signing), 'unknown_kid'],
    ['no kid', async () => sign(claims(), { typ: 'countersign-command+jwt' }, keys.signing.key), 'unknown_kid'],
    [
      'another key under our kid',
      async () => signCommand(claims(), { kid: keys.signing.kid, key: stranger.signing.key }),
      'bad_signature',
    ],
    [
      'tampered claims',
      async () => {
        const [header, , signature] = (await signCommand(claims(), keys.signing)).split('.');
        return `${header}.${part(claims({ args: { service: 'api', version: '9.9.9', note: '' } }))}.${signature}`;
      },
      'bad_signature',
    ],
    [
      'a request proof used as a command',
      async () => signRequest({ url: 'https://x/e', method: 'POST', body: '' }, keys.signing, ISSUER, NOW),
      'wrong_type',
    ],
    ['no typ', async () => sign(claims(), { kid: keys.signing.kid }, keys.signing.key), 'wrong_type'],
    [
      'a claim missing',
      async () =>
        sign(
          { ...claims(), idempotencyKey: undefined },
          { kid: keys.signing.kid, typ: 'countersign-command+jwt' },
          keys.signing.key,
        ),
      'malformed',
    ],
    [
      'args not an object',
      async () =>
        sign({ ...claims(), args: [1] }, { kid: keys.signing.kid, typ: 'countersign-command+jwt' }, keys.signing.key),
      'malformed',
    ],
    [
      'a lone surrogate in the arguments (no payload RFC 8785 can write)',
      async () =>
        sign(
          { ...claims(), args: { note: '\ud800' } },
          { kid: keys.signing.kid, typ: 'countersign-command+jwt' },
          keys.signing.key,
        ),
      'malformed',
    ],
    ['another issuer', async () => signCommand(claims({ iss: 'https://evil.example' }), keys.signing), 'wrong_issuer'],
    ['another scope', async () => signCommand(claims({ aud: 'executor:payments' }), keys.signing), 'wrong_audience'],
    [
      'expired past the skew',
      async () => signCommand(claims(), keys.signing),
      'expired',
      { now: new Date(NOW.getTime() + 331_000) },
    ],
    ['a lifetime over 5 minutes', async () => signCommand(claims({ exp: IAT + 3600 }), keys.signing), 'expired'],
    [
      'not valid yet past the skew',
      async () => signCommand(claims(), keys.signing),
      'not_yet_valid',
      { now: new Date(NOW.getTime() - 31_000) },
    ],
    [
      'args changed, hash kept',
      async () => signCommand({ ...claims(), args: { service: 'api', version: '9.9.9' } }, keys.signing),
      'hash_mismatch',
    ],
    [
      'another tenant, hash kept',
      async () => signCommand({ ...claims(), tenant: 'globex' }, keys.signing),
      'hash_mismatch',
    ],
  ];
  it.each(cases)('refuses %s (%s)', async (_, token, code, change = {}) => {
    await expect(verifyCommand(await token(), { ...options(), ...change })).rejects.toMatchObject({
      name: 'CommandRejected',
      code,
    });
  });
});

describe('keys from a JWKS URL', () => {
  it('fetches once, caches, and refetches once when a rotated-in kid appears', async () => {
    const rotated = await loadCommandKeys([await generateSigningJwk()]);
    const set = remoteKeySet(jwksUrl, { cooldownMs: 0 });
    const opts = { ...options(), jwks: set };
    const before = jwksFetches;
    await verifyCommand(await signCommand(claims(), keys.signing), opts);
    await verifyCommand(await signCommand(claims(), keys.signing), opts);
    expect(jwksFetches - before).toBe(1);
    published = [...rotated.jwks, ...keys.jwks];
    await expect(verifyCommand(await signCommand(claims(), rotated.signing), opts)).resolves.toBeTruthy();
    expect(jwksFetches - before).toBe(2);
    await expect(verifyCommand(await signCommand(claims(), stranger.signing), opts)).rejects.toMatchObject({
      code: 'unknown_kid',
    });
    expect(jwksFetches - before).toBe(3);
  });

  it('a URL string is one cached set per process; within the cooldown an unknown kid does not refetch', async () => {
    const before = jwksFetches;
    const opts = { ...options(), jwks: `${jwksUrl}?cached` };
    await verifyCommand(await signCommand(claims(), keys.signing), opts);
    await expect(verifyCommand(await signCommand(claims(), stranger.signing), opts)).rejects.toMatchObject({
      code: 'unknown_kid',
    });
    await verifyCommand(await signCommand(claims(), keys.signing), opts);
    expect(jwksFetches - before).toBe(1);
  });
});

describe("the client's copy of the command claims", () => {
  it('is the type the server signs: a claim added, removed or retyped on one side does not compile', () => {
    type Server = { [K in keyof CommandClaims]: CommandClaims[K] };
    expectTypeOf<client.CommandClaims>().toEqualTypeOf<Server>();
  });
});
