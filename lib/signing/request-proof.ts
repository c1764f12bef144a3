import { createHash, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { commandKeys, type SigningKey, signingIssuer } from './keys';

/**
 * The proof Countersign sends with every request to a team's resolver or executor
 * (docs/executors.md): a compact JWS over the request — its exact URL, method and body hash —
 * signed with the command keys, so a team's service verifies it against /.well-known/jwks.json and
 * needs no shared secret. Its own `typ` keeps it from passing as a command, and a command from
 * passing as it.
 */

export const REQUEST_PROOF_TYP = 'countersign-request+jwt';
export const REQUEST_PROOF_HEADER = 'Countersign-Signature';
/** A proof is good for one minute after it is made. */
export const REQUEST_PROOF_LIFETIME_SECONDS = 60;

export type SignedRequest = { url: string; method: 'GET' | 'POST'; body: string };

/** base64url (no padding) of SHA-256 over the body's exact bytes. */
export const bodySha256 = (body: string | Uint8Array) => createHash('sha256').update(body).digest('base64url');

export async function signRequest(
  request: SignedRequest,
  key?: SigningKey,
  issuer: string = signingIssuer(),
  now: Date = new Date(),
): Promise<string> {
  const signing = key ?? (await commandKeys()).signing;
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({
    htm: request.method,
    bodySha256: bodySha256(request.body),
  })
    .setProtectedHeader({ alg: 'EdDSA', kid: signing.kid, typ: REQUEST_PROOF_TYP })
    .setIssuer(issuer)
    .setAudience(request.url)
    .setIssuedAt(iat)
    .setExpirationTime(iat + REQUEST_PROOF_LIFETIME_SECONDS)
    .setJti(randomBytes(16).toString('base64url'))
    .sign(signing.key);
}
