import { createHash, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { commandKeys, type SigningKey } from './keys';
import { commandIssuer } from './mint';

/** The `typ` of a request proof: never a command's, so neither token passes as the other. */
export const REQUEST_PROOF_TYP = 'countersign-request+jwt';
/** The header every request to a team's resolver or executor carries (docs/executors.md). */
export const REQUEST_PROOF_HEADER = 'Countersign-Signature';
export const REQUEST_PROOF_LIFETIME_SECONDS = 60;

export type SignedRequest = {
  /** The exact URL requested: the proof's audience. */
  url: string;
  method: 'GET' | 'POST';
  /** The exact body sent (the empty string for a GET). */
  body: string;
};

/** base64url (no padding) of SHA-256 of the body's UTF-8 bytes. */
export const bodySha256 = (body: string) => createHash('sha256').update(body, 'utf8').digest('base64url');

/**
 * The proof that a request to a team's service comes from this Countersign: a compact JWS over
 * the URL, the method and the body's hash, signed with the command keys (verifiable against
 * /.well-known/jwks.json), so the team's service needs no shared secret.
 */
export async function signRequest(
  { url, method, body }: SignedRequest,
  key?: SigningKey,
  issuer?: string,
  now = new Date(),
): Promise<string> {
  const signing = key ?? (await commandKeys()).signing;
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({
    iss: issuer ?? commandIssuer(),
    aud: url,
    htm: method,
    bodySha256: bodySha256(body),
    iat,
    exp: iat + REQUEST_PROOF_LIFETIME_SECONDS,
    jti: randomBytes(16).toString('base64url'),
  })
    .setProtectedHeader({ alg: 'EdDSA', kid: signing.kid, typ: REQUEST_PROOF_TYP })
    .sign(signing.key);
}
