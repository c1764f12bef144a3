import { generateAuthenticationOptions, verifyAuthenticationResponse } from '@simplewebauthn/server';
import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Proposal, passkeyChallenges, passkeys, proposals, tenants } from '@/db/schema';
import { notFound, Refusal } from '@/lib/errors/refusal';
import { newId } from '@/lib/ids';
import { ensureRegisteredIn, requireHostName } from '@/lib/passkeys/registration';
import type { RelyingParty } from '@/lib/passkeys/relying-party';
import type { SignedDecision } from '@/lib/passkeys/requests';
import {
  buildStatement,
  STATEMENT_LIFETIME_MS,
  statementChallenge,
  statementMismatches,
} from '@/lib/passkeys/statement';
import { canonicalJson } from '@/lib/payload-hash';
import { requireDecider } from './deciders';

/**
 * What a signed decision adds to its audit event (docs/passkeys.md), flat, so the tenant's hash
 * chain covers the statement, the assertion and the key that verifies it: a bundle verifier
 * checks the signature offline with nothing else.
 */
export type PasskeyEvidence = {
  passkey: string;
  passkeyName: string;
  passkeyCredential: string;
  /** The COSE public key, base64url, as registered. */
  passkeyPublicKey: string;
  passkeyRpId: string;
  /** The statement's RFC 8785 text: its SHA-256 is the challenge the authenticator signed. */
  passkeyStatement: string;
  passkeyAuthenticatorData: string;
  passkeyClientData: string;
  passkeySignature: string;
};

/**
 * `POST /api/v1/proposals/:id/decisions/challenge`: the statement of this person's decision and
 * the WebAuthn options whose challenge is its hash, for their passkeys. The challenge is kept
 * until it is used once or two minutes pass.
 */
export async function decisionChallenge(
  db: Database,
  input: { userId: string; proposalId: string; decision: 'approve' | 'reject'; rp: RelyingParty | undefined },
  now = new Date(),
) {
  const rp = requireHostName(input.rp);
  const [proposal] = await db.select().from(proposals).where(eq(proposals.id, input.proposalId)).limit(1);
  if (!proposal) throw notFound();
  await requireDecider(db, proposal, input.userId, 'Deciding');
  const owned = await db
    .select({ credentialId: passkeys.credentialId, transports: passkeys.transports })
    .from(passkeys)
    .where(eq(passkeys.userId, input.userId));
  if (owned.length === 0)
    throw new Refusal('no_passkey', 'You have no passkey yet; add one in Settings → Security, then sign.');
  const statement = buildStatement(proposal, input.userId, input.decision, now);
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    challenge: Buffer.from(statementChallenge(statement), 'base64url'),
    allowCredentials: owned.map((row) => ({ id: row.credentialId, transports: row.transports as never })),
    userVerification: 'required',
    timeout: STATEMENT_LIFETIME_MS,
  });
  await db.insert(passkeyChallenges).values({
    id: newId('chl'),
    userId: input.userId,
    purpose: 'decide',
    challenge: options.challenge,
    statement,
    expiresAt: new Date(statement.expiresAt),
    createdAt: now,
  });
  return { statement, options };
}

/** Whether an approval of `proposal` must be signed: its rule says so, or its tenant does for every approval. */
export async function passkeyRequired(
  db: Database,
  proposal: Pick<Proposal, 'tenantId' | 'routing'>,
): Promise<boolean> {
  if (proposal.routing.passkey) return true;
  const [tenant] = await db
    .select({ required: tenants.requirePasskeys })
    .from(tenants)
    .where(eq(tenants.id, proposal.tenantId));
  return tenant?.required === true;
}

/**
 * What the proposal page needs to offer signing: whether this approval must be signed, and whether the person has a
 * passkey.
 */
export async function passkeyStateFor(
  db: Database,
  proposal: Pick<Proposal, 'tenantId' | 'routing'>,
  userId: string,
): Promise<{ required: boolean; registered: boolean }> {
  const [required, [owned]] = await Promise.all([
    passkeyRequired(db, proposal),
    db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)).limit(1),
  ]);
  return { required, registered: owned !== undefined };
}

export const passkeyRequiredError = () =>
  new Refusal(
    'passkey_required',
    'This approval must be signed with your passkey. Sign it, or add a passkey in Settings → Security first.',
  );

/** The signature counter in authenticator data (bytes 33–36, big-endian). */
function signCount(authenticatorData: string): number {
  const bytes = Buffer.from(authenticatorData, 'base64url');
  return bytes.length >= 37 ? bytes.readUInt32BE(33) : -1;
}

/**
 * Verifies a signed decision inside the decision's transaction, before it is recorded: the
 * statement is this proposal, decision, stored hash, revision and person; its challenge was
 * issued to them, unused (consumed here) and unexpired; the credential is theirs; the counter
 * moved forward; and the assertion verifies for this origin and relying party with the user
 * verified. Any failure throws, so the transaction (and the consumption) rolls back.
 */
export async function verifySignedDecision(
  tx: Database,
  input: {
    userId: string;
    proposal: Proposal;
    decision: 'approve' | 'reject';
    signed: SignedDecision;
    rp: RelyingParty | undefined;
  },
  now: Date,
): Promise<PasskeyEvidence> {
  const rp = requireHostName(input.rp);
  const { statement, response } = input.signed;
  const { proposal, userId } = input;
  const wrong = statementMismatches(statement, {
    proposalId: proposal.id,
    tenantId: proposal.tenantId,
    decision: input.decision,
    payloadHash: proposal.payloadHash,
    revisionOf: proposal.parentId ?? null,
    userId,
  });
  if (wrong.length > 0)
    throw new Refusal(
      'passkey_statement_mismatch',
      `The signed statement is not this decision (${wrong.join(', ')} differ); nothing was recorded.`,
    );

  const challenge = statementChallenge(statement);
  const [issued] = await tx
    .delete(passkeyChallenges)
    .where(
      and(
        eq(passkeyChallenges.challenge, challenge),
        eq(passkeyChallenges.userId, userId),
        eq(passkeyChallenges.purpose, 'decide'),
      ),
    )
    .returning();
  if (!issued || canonicalJson(issued.statement) !== canonicalJson(statement)) {
    throw new Refusal(
      'decision_passkey_challenge_unknown',
      'This statement was not issued to you or was already used; ask for a new one and sign again.',
    );
  }
  if (issued.expiresAt.getTime() <= now.getTime())
    throw new Refusal(
      'passkey_challenge_expired',
      'The statement expired (2 minutes); ask for a new one and sign again.',
    );

  const [credential] = await tx.select().from(passkeys).where(eq(passkeys.credentialId, response.id)).for('update');
  if (!credential || credential.userId !== userId)
    throw new Refusal('passkey_not_yours', 'That passkey is not one of yours.');
  const counter = signCount(response.response.authenticatorData);
  if ((counter > 0 || credential.counter > 0) && counter <= credential.counter) {
    throw new Refusal(
      'passkey_counter',
      'The passkey’s signature counter did not move forward: the assertion may be a copy. Nothing was recorded.',
    );
  }
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: credential.credentialId,
        publicKey: Buffer.from(credential.publicKey, 'base64url'),
        counter: credential.counter,
        transports: credential.transports,
      },
      requireUserVerification: true,
    });
  } catch (error) {
    throw new Refusal(
      'decision_passkey_invalid',
      `The passkey signature does not verify: ${error instanceof Error ? error.message : 'unknown reason'}.`,
    );
  }
  if (!verified.verified) throw new Refusal('decision_passkey_invalid', 'The passkey signature does not verify.');
  await tx
    .update(passkeys)
    .set({ counter: verified.authenticationInfo.newCounter, lastUsedAt: now })
    .where(eq(passkeys.id, credential.id));
  await ensureRegisteredIn(tx, proposal.tenantId, credential, rp.id, now);
  return {
    passkey: credential.id,
    passkeyName: credential.name,
    passkeyCredential: credential.credentialId,
    passkeyPublicKey: credential.publicKey,
    passkeyRpId: rp.id,
    passkeyStatement: canonicalJson(statement),
    passkeyAuthenticatorData: response.response.authenticatorData,
    passkeyClientData: response.response.clientDataJSON,
    passkeySignature: response.response.signature,
  };
}
