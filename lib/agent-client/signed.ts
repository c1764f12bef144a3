import { compactVerify, decodeProtectedHeader, type ProtectedHeaderParameters } from 'jose';
import type { KeySet } from './key-set';

const COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** Headers that would let a token choose its own verification key. */
const KEY_HEADERS = ['jku', 'x5u', 'jwk', 'x5c', 'x5t', 'x5t#S256'];

/** The refusals a command and a request proof share, by the same checks. */
export type SharedRejection = SignedFailure | 'wrong_issuer' | 'wrong_audience' | 'expired';
export type SignedFailure = 'alg_not_allowed' | 'unknown_kid' | 'bad_signature' | 'wrong_type';

/**
 * The claims of a compact JWS that Countersign signed, checked in this order: compact form; alg
 * pinned to EdDSA; no key-carrying header (`unknown_kid`: keys come only from the JWKS); the kid
 * in the key set; the signature; `typ` exactly `typ`; the payload a JSON object. `fail` builds
 * the error thrown for the first check that fails.
 */
export async function readSigned(
  jws: string,
  keys: KeySet,
  typ: string,
  fail: (code: SignedFailure | 'malformed', message: string) => Error,
): Promise<Record<string, unknown>> {
  if (!COMPACT.test(jws)) throw fail('malformed', 'Not a compact JWS (three base64url parts).');
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(jws);
  } catch {
    throw fail('malformed', 'The JWS protected header is not valid base64url JSON.');
  }
  if (header.alg !== 'EdDSA') throw fail('alg_not_allowed', 'Only EdDSA signatures are accepted.');
  if (KEY_HEADERS.some((name) => name in header))
    throw fail('unknown_kid', 'A token may not carry or point at its own key (jku, jwk, x5u, x5c).');
  const key = typeof header.kid === 'string' ? await keys.get(header.kid) : undefined;
  if (!key) throw fail('unknown_kid', "The token names no key of Countersign's key set.");

  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(jws, key, { algorithms: ['EdDSA'] }));
  } catch {
    throw fail('bad_signature', 'The signature does not verify.');
  }
  if (header.typ !== typ) throw fail('wrong_type', `The token type must be ${typ}.`);
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    throw fail('malformed', 'The claims are not JSON.');
  }
  if (!claims || typeof claims !== 'object' || Array.isArray(claims))
    throw fail('malformed', 'The claims are not an object.');
  return claims as Record<string, unknown>;
}

/** Whether every named claim is a string, or every named claim a whole number. */
export const allStrings = (claims: Record<string, unknown>, names: readonly string[]) =>
  names.every((name) => typeof claims[name] === 'string');
export const allIntegers = (claims: Record<string, unknown>, names: readonly string[]) =>
  names.every((name) => Number.isSafeInteger(claims[name]));
