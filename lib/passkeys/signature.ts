import { createHash } from 'node:crypto';
import { verifySignature } from '@simplewebauthn/server/helpers';
import { canonicalJson } from '@/lib/payload-hash';
import { type DecisionStatement, decisionStatementSchema } from './requests';
import { statementChallenge } from './statement';

/** A signed decision as its audit event keeps it (lib/passkeys/decision.ts), base64url fields. */
export type SignedEvidence = {
  statement: string;
  authenticatorData: string;
  clientData: string;
  signature: string;
  /** The COSE public key the credential registered. */
  publicKey: string;
  rpId: string;
};

export type SignatureVerdict =
  | { ok: true; statement: DecisionStatement; origin: string }
  | { ok: false; reason: string };

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest();

/**
 * Checks a WebAuthn assertion over a decision statement offline, with nothing but what the audit
 * event holds (docs/passkeys.md): the statement is canonical RFC 8785 text; the client data is a
 * `webauthn.get` whose challenge is the statement's hash, from an origin of the relying party; the
 * authenticator data names that relying party with the user present and verified; and the
 * signature over authenticator data ‖ SHA-256(client data) verifies with the public key. A change
 * of any byte of the statement, client data, authenticator data or signature fails one of these.
 */
export async function checkSignedStatement(evidence: SignedEvidence): Promise<SignatureVerdict> {
  let statement: DecisionStatement;
  try {
    const parsed = decisionStatementSchema.safeParse(JSON.parse(evidence.statement));
    if (!parsed.success || canonicalJson(parsed.data) !== evidence.statement)
      return { ok: false, reason: 'the statement is not a decision statement in RFC 8785 form' };
    statement = parsed.data;
  } catch {
    return { ok: false, reason: 'the statement is not JSON' };
  }
  const clientBytes = Buffer.from(evidence.clientData, 'base64url');
  let client: { type?: unknown; challenge?: unknown; origin?: unknown };
  try {
    client = JSON.parse(clientBytes.toString('utf8')) as typeof client;
  } catch {
    return { ok: false, reason: 'the client data is not JSON' };
  }
  if (client.type !== 'webauthn.get')
    return {
      ok: false,
      reason: `the client data's type is ${JSON.stringify(client.type) ?? 'missing'}, not "webauthn.get"`,
    };
  if (client.challenge !== statementChallenge(statement))
    return { ok: false, reason: "the client data's challenge is not the statement's hash" };
  const origin = typeof client.origin === 'string' ? client.origin : '';
  if (!originOf(origin, evidence.rpId))
    return { ok: false, reason: `the origin ${origin || '(none)'} is not of the relying party ${evidence.rpId}` };
  const authenticatorData = Buffer.from(evidence.authenticatorData, 'base64url');
  if (authenticatorData.length < 37) return { ok: false, reason: 'the authenticator data is too short' };
  if (!authenticatorData.subarray(0, 32).equals(sha256(evidence.rpId)))
    return { ok: false, reason: `the authenticator data is for another relying party than ${evidence.rpId}` };
  const flags = authenticatorData[32]!;
  if (!(flags & FLAG_USER_PRESENT) || !(flags & FLAG_USER_VERIFIED))
    return { ok: false, reason: 'the authenticator did not verify the user' };
  let valid = false;
  try {
    valid = await verifySignature({
      signature: Buffer.from(evidence.signature, 'base64url'),
      data: Buffer.concat([authenticatorData, sha256(clientBytes)]),
      credentialPublicKey: Buffer.from(evidence.publicKey, 'base64url'),
    });
  } catch {
    valid = false;
  }
  return valid
    ? { ok: true, statement, origin }
    : { ok: false, reason: 'the signature does not verify with the registered public key' };
}

/** The origin is the relying party's host or one of its subdomains (WebAuthn's rule). */
function originOf(origin: string, rpId: string): boolean {
  try {
    const host = new URL(origin).hostname;
    return host === rpId || host.endsWith(`.${rpId}`);
  } catch {
    return false;
  }
}
