import { CLOCK_SKEW_SECONDS } from './command';
import { sha256Base64url } from './digest';
import { type KeySource, keySetOf } from './key-set';
import { Rejected } from './rejected';
import { allIntegers, allStrings, readSigned, type SharedRejection, type SignedFailure } from './signed';

export const REQUEST_PROOF_TYP = 'countersign-request+jwt';
/** The header that carries the proof on every request Countersign makes to a team's service. */
export const REQUEST_PROOF_HEADER = 'Countersign-Signature';
export const REQUEST_PROOF_LIFETIME_SECONDS = 60;

export type RequestRejectedCode =
  | SharedRejection
  | 'missing_signature'
  | 'wrong_method'
  | 'body_mismatch'
  | 'replayed_jti';

/** A request that did not prove it comes from Countersign: answer 401 `{error: {code, message}}`. */
export class RequestRejected extends Rejected<RequestRejectedCode> {
  override name = 'RequestRejected';
}

export type RequestProofClaims = {
  iss: string;
  aud: string;
  htm: string;
  bodySha256: string;
  iat: number;
  exp: number;
  jti: string;
};

/** Remembers proof ids until they could no longer verify anyway. */
export type ReplayGuard = {
  /** False when `jti` was seen; otherwise remembers it until `keepUntil` (seconds). */
  claim(jti: string, keepUntil: number, now: number): boolean;
};

/** An in-memory replay guard, for one process: each entry is kept until its proof's exp + 30 s. */
export function jtiSet(): ReplayGuard {
  const seen = new Map<string, number>();
  return {
    claim(jti, keepUntil, now) {
      // Insertion order is nearly expiry order (every proof lives 60 s): drop the stale head.
      for (const [old, until] of seen) {
        if (until >= now) break;
        seen.delete(old);
      }
      if (seen.has(jti)) return false;
      seen.set(jti, keepUntil);
      return true;
    },
  };
}

const processGuard = jtiSet();

export type RequestParts = {
  method: string;
  /** The Countersign-Signature header's value. */
  signature: string | null | undefined;
  /** The exact body bytes received (the empty string for a GET). */
  body: Uint8Array | string;
};

export type VerifyRequestOptions = {
  jwks: KeySource;
  /** Countersign's issuer (its APP_URL). */
  issuer: string;
  /** The URL this service answers at, exactly as written in the definition (for a GET, base + '/' + commandId). */
  url: string;
  now?: Date;
  /** Where seen proof ids are kept (default: one in-memory set per process). */
  seen?: ReplayGuard;
};

const proofFailure = (code: SignedFailure | 'malformed') => (code === 'malformed' ? 'bad_signature' : code);

/**
 * Verifies that a request comes from Countersign and was not altered or replayed: the proof's
 * signature and `typ`, then issuer, audience (the URL), method, body hash, time (30 s skew) and
 * a jti never seen. Answers the proof's claims, or throws RequestRejected.
 */
export async function verifyRequest(parts: RequestParts, options: VerifyRequestOptions): Promise<RequestProofClaims> {
  const fail = (code: RequestRejectedCode, message: string) => new RequestRejected(code, message);
  if (!parts.signature) throw fail('missing_signature', `The request carries no ${REQUEST_PROOF_HEADER} header.`);
  const claims = await readSigned(parts.signature.trim(), keySetOf(options.jwks), REQUEST_PROOF_TYP, (code, message) =>
    fail(proofFailure(code), message),
  );
  if (!allStrings(claims, ['iss', 'aud', 'htm', 'bodySha256', 'jti']) || !allIntegers(claims, ['iat', 'exp']))
    throw fail('bad_signature', 'The request proof claims are incomplete or of the wrong type.');
  const proof = claims as RequestProofClaims;
  if (proof.iss !== options.issuer) throw fail('wrong_issuer', 'The request was signed by someone else.');
  if (proof.aud !== options.url) throw fail('wrong_audience', 'The request proof is for another URL.');
  if (proof.htm !== parts.method.toUpperCase()) throw fail('wrong_method', 'The request proof is for another method.');
  if (proof.bodySha256 !== (await sha256Base64url(parts.body)))
    throw fail('body_mismatch', 'The body is not the one the request proof signs.');

  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (proof.exp - proof.iat > REQUEST_PROOF_LIFETIME_SECONDS)
    throw fail('expired', 'The request proof claims a lifetime longer than allowed.');
  if (now > proof.exp + CLOCK_SKEW_SECONDS) throw fail('expired', 'The request proof has expired.');
  if (now + CLOCK_SKEW_SECONDS < proof.iat) throw fail('expired', 'The request proof is not valid yet.');
  if (proof.jti.length === 0 || proof.jti.length > 128)
    throw fail('bad_signature', 'The request proof id is empty or too long.');
  if (!(options.seen ?? processGuard).claim(proof.jti, proof.exp + CLOCK_SKEW_SECONDS, now))
    throw fail('replayed_jti', 'This request proof was already used.');
  return proof;
}
