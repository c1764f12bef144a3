import { generateRegistrationOptions, verifyRegistrationResponse } from '@simplewebauthn/server';
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { auditEvents, auditPending, type Passkey, passkeyChallenges, passkeys, users } from '@/db/schema';
import { recordAccountEvent } from '@/lib/auth/account-events';
import { awaitsItsOwner, OWNER_MUST_PROVE } from '@/lib/auth/email-codes';
import { Refusal } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { newId } from '@/lib/ids';
import { hostProblem, type RelyingParty } from './relying-party';
import type { PasskeyRegisterRequest } from './requests';

/**
 * The signature algorithms a passkey may use: ES256, EdDSA and RS256, which every supported Node
 * verifies (the offline verifier too). Newer ones the library offers (ML-DSA) are left out until
 * Node verifies them without an experimental flag.
 */
const ALGORITHMS = [-7, -8, -257];

/** How long the browser has to create a passkey after asking for the options. */
const REGISTRATION_LIFETIME_MS = 5 * 60_000;

/** A passkey as its owner and their admins see it: never the key material. */
export type PasskeyView = { id: string; name: string; createdAt: string; lastUsedAt: string | null };

export const passkeyView = (row: typeof passkeys.$inferSelect): PasskeyView => ({
  id: row.id,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
});

/** Passkeys cannot be used at this address: the page shows the words and offers `localhost`. */
export function requireHostName(rp: RelyingParty | undefined): RelyingParty {
  const problem = hostProblem(rp);
  if (problem || !rp)
    throw new Refusal(
      'passkey_host',
      problem?.message ?? 'Passkeys need a host name.',
      problem?.useInstead ? { useInstead: problem.useInstead } : {},
    );
  return rp;
}

export async function listPasskeys(db: Database, userId: string): Promise<PasskeyView[]> {
  const rows = await db
    .select()
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .orderBy(asc(passkeys.createdAt), asc(passkeys.id));
  return rows.map(passkeyView);
}

/**
 * The options the browser creates a passkey with: user verification required, a discoverable
 * credential preferred, the person's existing passkeys excluded. The challenge is kept until
 * it is used once or expires.
 */
export async function registrationOptions(db: Database, userId: string, rp: RelyingParty, now = new Date()) {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) throw new Refusal('not_found', 'No such person.');
  if (awaitsItsOwner(user)) throw OWNER_MUST_PROVE;
  const existing = await db
    .select({ credentialId: passkeys.credentialId, transports: passkeys.transports })
    .from(passkeys)
    .where(eq(passkeys.userId, userId));
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.name,
    userID: new TextEncoder().encode(userId),
    attestationType: 'none',
    timeout: REGISTRATION_LIFETIME_MS,
    excludeCredentials: existing.map((row) => ({ id: row.credentialId, transports: row.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  await db.insert(passkeyChallenges).values({
    id: newId('chl'),
    userId,
    purpose: 'register',
    challenge: options.challenge,
    expiresAt: new Date(now.getTime() + REGISTRATION_LIFETIME_MS),
    createdAt: now,
  });
  return options;
}

const invalidPasskey = (message: string) => new Refusal('passkey_invalid', message);

/** The challenge a WebAuthn response answers, read from its client data (checked again by the library). */
export function answeredChallenge(clientDataJSON: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    if (typeof parsed.challenge === 'string') return parsed.challenge;
  } catch {
    // Falls through to the refusal.
  }
  throw invalidPasskey('The response’s client data is not WebAuthn client data.');
}

/**
 * Adds a passkey: the registration response answers a challenge issued to this person, unused and
 * unexpired (consumed here), on this origin and relying party, with the user verified. Audited
 * `passkey.registered` in every tenant the person belongs to, with the credential id, public key
 * and name, so a bundle verifier can bind a signature to the person.
 */
export async function registerPasskey(
  db: Database,
  userId: string,
  rp: RelyingParty,
  body: PasskeyRegisterRequest,
  now = new Date(),
) {
  const challenge = answeredChallenge(body.response.response.clientDataJSON);
  return db.transaction(async (tx) => {
    const [user] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
    if (user && awaitsItsOwner(user)) throw OWNER_MUST_PROVE;
    const [issued] = await tx
      .delete(passkeyChallenges)
      .where(
        and(
          eq(passkeyChallenges.challenge, challenge),
          eq(passkeyChallenges.userId, userId),
          eq(passkeyChallenges.purpose, 'register'),
          gt(passkeyChallenges.expiresAt, now),
        ),
      )
      .returning();
    if (!issued)
      throw new Refusal(
        'passkey_challenge_unknown',
        'This registration was not asked for, was already used, or took longer than 5 minutes; start again.',
      );
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: body.response,
        expectedChallenge: issued.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      });
    } catch (error) {
      throw invalidPasskey(
        `The passkey could not be verified: ${error instanceof Error ? error.message : 'unknown reason'}.`,
      );
    }
    if (!verified.verified || !verified.registrationInfo) throw invalidPasskey('The passkey could not be verified.');
    const { credential } = verified.registrationInfo;
    const [taken] = await tx.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.credentialId, credential.id));
    if (taken) throw new Refusal('passkey_exists', 'This passkey is already registered.');
    const [row] = await tx
      .insert(passkeys)
      .values({
        id: newId('psk'),
        userId,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        name: body.name,
        transports: credential.transports ?? [],
        createdAt: now,
      })
      .returning();
    await recordAccountEvent(tx, userId, registeredEvent(row!, rp.id, now));
    return passkeyView(row!);
  });
}

/** The `passkey.registered` event of a passkey: who it belongs to, its credential id, public key and name. */
function registeredEvent(row: Passkey, rpId: string, now: Date) {
  return {
    type: 'passkey.registered' as const,
    actor: { type: 'user' as const, id: row.userId },
    data: {
      user: row.userId,
      passkey: row.id,
      credential: row.credentialId,
      publicKey: row.publicKey,
      name: row.name,
      rpId,
    },
    occurredAt: now,
  };
}

/**
 * A passkey's registration in `tenantId`'s trail, recorded now if that trail has none (the person
 * joined the tenant after adding the passkey), in the caller's transaction: a signed decision's
 * key is then bound to the person in the chain its bundle is checked against. `first_use` says
 * the event was written at the passkey's first signature in the tenant, not when it was added.
 */
export async function ensureRegisteredIn(
  tx: Database,
  tenantId: string,
  row: Passkey,
  rpId: string,
  now: Date,
): Promise<void> {
  const ofThisKey = (table: typeof auditEvents | typeof auditPending) =>
    and(
      eq(table.tenantId, tenantId),
      eq(table.type, 'passkey.registered'),
      sql`${table.data}->>'credential' = ${row.credentialId}`,
      sql`${table.data}->>'publicKey' = ${row.publicKey}`,
    );
  const [chained] = await tx.select({ id: auditEvents.seq }).from(auditEvents).where(ofThisKey(auditEvents)).limit(1);
  if (chained) return;
  const [waiting] = await tx.select({ id: auditPending.id }).from(auditPending).where(ofThisKey(auditPending)).limit(1);
  if (waiting) return;
  await recordStateChange(tx, { ...registeredEvent(row, rpId, now), tenantId, reasonCode: 'first_use', outbox: false });
}
