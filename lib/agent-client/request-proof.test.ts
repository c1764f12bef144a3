import { base64url, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signCommand } from '@/lib/commands/mint';
import { type CommandKeys, generateSigningJwk, loadCommandKeys } from '@/lib/signing/keys';
import { bodySha256, signRequest } from '@/lib/signing/request-proof';
import { jtiSet, type RequestParts, verifyRequest } from './index';

// A team's check that a request comes from Countersign, against proofs signed as Countersign signs them.
const ISSUER = 'https://countersign.example';
const URL_ = 'https://svc.example/actions/deploy/execute';
const NOW = new Date('2026-12-07T10:00:00Z');
const IAT = NOW.getTime() / 1000;
const BODY = 'eyJhbGciOiJFZERTQSJ9.e30.c2ln';
let keys: CommandKeys;
let stranger: CommandKeys;

beforeAll(async () => {
  keys = await loadCommandKeys([await generateSigningJwk()]);
  stranger = await loadCommandKeys([await generateSigningJwk()]);
});

const options = () => ({ jwks: { keys: keys.jwks }, issuer: ISSUER, url: URL_, now: NOW, seen: jtiSet() });
const proof = (change: { url?: string; method?: 'GET' | 'POST'; body?: string; issuer?: string; now?: Date } = {}) =>
  signRequest(
    { url: change.url ?? URL_, method: change.method ?? 'POST', body: change.body ?? BODY },
    keys.signing,
    change.issuer ?? ISSUER,
    change.now ?? NOW,
  );
const post = (signature: string | undefined, body: RequestParts['body'] = BODY): RequestParts => ({
  method: 'POST',
  signature,
  body,
});
const claims = {
  iss: ISSUER,
  aud: URL_,
  htm: 'POST',
  bodySha256: bodySha256(BODY),
  iat: IAT,
  exp: IAT + 60,
  jti: 'j1',
};
const signed = (header: Record<string, unknown>, payload: object = claims) =>
  new SignJWT({ ...payload })
    .setProtectedHeader({ alg: 'EdDSA', kid: keys.signing.kid, typ: 'countersign-request+jwt', ...header })
    .sign(keys.signing.key);

describe('verifyRequest', () => {
  it('answers the claims of a proof over this URL, method and body (bytes or text)', async () => {
    const opts = options();
    await expect(verifyRequest(post(await proof()), opts)).resolves.toMatchObject({ aud: URL_, htm: 'POST' });
    const bytes = new TextEncoder().encode(BODY);
    await expect(verifyRequest(post(await proof(), bytes), opts)).resolves.toMatchObject({ iat: IAT });
    const get = { method: 'GET', signature: await proof({ url: `${URL_}/cmd_1`, method: 'GET', body: '' }), body: '' };
    await expect(verifyRequest(get, { ...opts, url: `${URL_}/cmd_1` })).resolves.toMatchObject({ htm: 'GET' });
  });

  it('accepts the 30 s skew around [iat, exp]', async () => {
    for (const offset of [-30, 90]) {
      const now = new Date(NOW.getTime() + offset * 1000);
      await expect(verifyRequest(post(await proof()), { ...options(), now })).resolves.toBeTruthy();
    }
  });

  const cases: [string, () => Promise<RequestParts>, string, Partial<ReturnType<typeof options>>?][] = [
    ['no signature header', async () => post(undefined), 'missing_signature'],
    ['an empty signature header', async () => post(''), 'missing_signature'],
    ['garbage', async () => post('not-a-jws'), 'bad_signature'],
    ['a tampered signature', async () => post(`${(await proof()).slice(0, -4)}AAAA`), 'bad_signature'],
    [
      'another key under our kid',
      async () =>
        post(
          await signRequest(
            { url: URL_, method: 'POST', body: BODY },
            { kid: keys.signing.kid, key: stranger.signing.key },
            ISSUER,
            NOW,
          ),
        ),
      'bad_signature',
    ],
    ['claims of the wrong type', async () => post(await signed({}, { ...claims, iat: 'now' })), 'bad_signature'],
    [
      'a key outside the JWKS',
      async () => post(await signRequest({ url: URL_, method: 'POST', body: BODY }, stranger.signing, ISSUER, NOW)),
      'unknown_kid',
    ],
    ['an x5u header', async () => post(await signed({ x5u: 'https://evil.example/cert' })), 'unknown_kid'],
    [
      'alg none',
      async () =>
        post(
          `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'countersign-request+jwt' }))}.${base64url.encode(JSON.stringify(claims))}.`,
        ),
      'alg_not_allowed',
    ],
    [
      'a command used as a request proof',
      async () =>
        post(
          await signCommand(
            {
              ...claims,
              aud: URL_,
              sub: 'p',
              nbf: IAT,
              tenant: 't',
              action: 'a',
              contractVersion: 1,
              args: {},
              evidenceRefs: [],
              payloadHash: 'sha256:0',
              idempotencyKey: 'k',
            },
            keys.signing,
          ),
        ),
      'wrong_type',
    ],
    ['another issuer', async () => post(await proof({ issuer: 'https://evil.example' })), 'wrong_issuer'],
    [
      'another URL',
      async () => post(await proof({ url: 'https://svc.example/actions/other/execute' })),
      'wrong_audience',
    ],
    [
      'the GET proof of a command used for the POST',
      async () => post(await proof({ url: `${URL_}/cmd_1`, method: 'GET' })),
      'wrong_audience',
    ],
    ['a GET proof for a POST', async () => post(await proof({ method: 'GET' })), 'wrong_method'],
    ['a tampered body', async () => post(await proof(), `${BODY}x`), 'body_mismatch'],
    ['expired past the skew', async () => post(await proof()), 'expired', { now: new Date(NOW.getTime() + 91_000) }],
    [
      'not valid yet past the skew',
      async () => post(await proof()),
      'expired',
      { now: new Date(NOW.getTime() - 31_000) },
    ],
    ['a lifetime over 60 s', async () => post(await signed({}, { ...claims, exp: IAT + 3600 })), 'expired'],
  ];
  it.each(cases)('refuses %s (%s)', async (_, parts, code, change = {}) => {
    await expect(verifyRequest(await parts(), { ...options(), ...change })).rejects.toMatchObject({
      name: 'RequestRejected',
      code,
    });
  });

  it('refuses a replayed jti, and remembers it until exp + 30 s only', async () => {
    const opts = options();
    const signature = await proof();
    await verifyRequest(post(signature), opts);
    await expect(verifyRequest(post(signature), opts)).rejects.toMatchObject({ code: 'replayed_jti' });
    const seen = jtiSet();
    expect(seen.claim('a', 100, 10)).toBe(true);
    expect(seen.claim('a', 100, 100)).toBe(false);
    expect(seen.claim('b', 200, 101)).toBe(true);
    expect(seen.claim('a', 200, 102)).toBe(true);
  });
});
