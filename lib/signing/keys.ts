import { randomBytes } from 'node:crypto';
import { type CryptoKey, exportJWK, generateKeyPair, importJWK } from 'jose';
import { z } from 'zod';
import { env, signingKeySchema } from '@/lib/env';

/** Who signs, as `iss` names it in commands and request proofs: APP_URL, else `countersign`. */
export const signingIssuer = () => env().APP_URL ?? 'countersign';

/** One Ed25519 private JWK as SIGNING_KEYS holds it. */
export type SigningJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string; kid: string };

/** What /.well-known/jwks.json serves for each key: the public part only. */
export type PublicJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' };

/** The signer's half: the first key of the set. */
export type SigningKey = { kid: string; key: CryptoKey };

/** The executor's half: public keys only, by kid. */
export type VerificationKeys = ReadonlyMap<string, CryptoKey>;

export type CommandKeys = { signing: SigningKey; verification: VerificationKeys; jwks: PublicJwk[] };

/** Parses a key set (as SIGNING_KEYS or the rotation CLI reads it): a non-empty array, unique kids. */
export function parseKeySet(value: unknown): SigningJwk[] {
  const keys = z.array(signingKeySchema).min(1, 'a key set must hold at least one key').parse(value);
  const kids = new Set<string>();
  for (const key of keys) {
    if (kids.has(key.kid)) throw new Error(`the key set holds kid "${key.kid}" twice`);
    kids.add(key.kid);
  }
  return keys;
}

export function publicJwk(key: SigningJwk): PublicJwk {
  return { kty: 'OKP', crv: 'Ed25519', x: key.x, kid: key.kid, alg: 'EdDSA', use: 'sig' };
}

async function importKey(jwk: Record<string, unknown>): Promise<CryptoKey> {
  const key = await importJWK(jwk, 'EdDSA');
  if (key instanceof Uint8Array) throw new Error('an Ed25519 JWK imported as a secret');
  return key;
}

/** The public keys of a set, by kid: all of them verify. */
export async function verificationKeys(keys: readonly SigningJwk[] | readonly PublicJwk[]): Promise<VerificationKeys> {
  const map = new Map<string, CryptoKey>();
  for (const key of keys) map.set(key.kid, await importKey({ kty: key.kty, crv: key.crv, x: key.x }));
  return map;
}

/** A key set loaded for use: the first key signs, all verify, the JWKS lists their public parts. */
export async function loadCommandKeys(keys: readonly SigningJwk[]): Promise<CommandKeys> {
  const [first] = keys;
  if (!first) throw new Error('a key set must hold at least one key');
  return {
    signing: { kid: first.kid, key: await importKey({ ...first }) },
    verification: await verificationKeys(keys),
    jwks: keys.map(publicJwk),
  };
}

/** A fresh Ed25519 key with a dated, random kid (the CLI's signing-key and rotate-signing-keys). */
export async function generateSigningJwk(now = new Date()): Promise<SigningJwk> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(privateKey);
  return parseKeySet([{ ...jwk, kid: `key-${now.toISOString().slice(0, 10)}-${randomBytes(3).toString('hex')}` }])[0]!;
}

/** Rotation: a new key first (it signs from now on); the old ones keep verifying until retired. */
export async function rotateKeySet(current: unknown, now = new Date()): Promise<SigningJwk[]> {
  const keys = parseKeySet(current);
  return [await generateSigningJwk(now), ...keys];
}

/** Retirement: the set without `kid`; refuses an unknown kid and refuses to leave no key. */
export function retireKey(current: unknown, kid: string): SigningJwk[] {
  const keys = parseKeySet(current);
  if (!keys.some((key) => key.kid === kid)) throw new Error(`no key with kid "${kid}" in the set`);
  const rest = keys.filter((key) => key.kid !== kid);
  if (rest.length === 0) throw new Error('refusing to retire the only key: rotate first, then retire the old one');
  return rest;
}

const globalForKeys = globalThis as unknown as { countersignCommandKeys?: Promise<CommandKeys> };

/**
 * The process's keys from SIGNING_KEYS. Without it (development and tests only: production refuses
 * to start without it, lib/env.ts) an ephemeral key is generated once per process, so commands
 * minted by this process verify here and nowhere else.
 */
export function commandKeys(): Promise<CommandKeys> {
  globalForKeys.countersignCommandKeys ??= (async () => {
    const configured = env().SIGNING_KEYS;
    if (configured) return loadCommandKeys(parseKeySet(configured));
    if (env().NODE_ENV === 'production' && !env().COUNTERSIGN_DEMO)
      throw new Error('SIGNING_KEYS is missing (required in production)');
    return loadCommandKeys([await generateSigningJwk()]);
  })();
  globalForKeys.countersignCommandKeys.catch(() => {
    globalForKeys.countersignCommandKeys = undefined;
  });
  return globalForKeys.countersignCommandKeys;
}
