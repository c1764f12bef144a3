import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from '@/db';
import { emailCodes, passkeyChallenges, passkeys, users } from '@/db/schema';
import { Refusal, rateLimited } from '@/lib/errors/refusal';
import { newId } from '@/lib/ids';
import { type TargetPolicy, targetPolicy } from '@/lib/notifications/outbound';
import { type MailSettings, sendMail } from '@/lib/notifications/send';
import { recordAccountEvent } from './account-events';
import { forgetKnownAddresses } from './known-addresses';
import { hashPassword } from './password';
import { endAllSessions } from './sessions';

/**
 * Proving an address: a six-digit code sent to it over SMTP (the operator's SMTP_URL, never a
 * tenant's channel, so no tenant admin can read it). A code belongs to the address, not to an
 * account: an invitation's code proves an address that may have no account yet. Only its SHA-256
 * (salted with the code's id) is stored; it expires after 15 minutes, dies after 5 wrong tries,
 * works once, and a new one replaces the pending one. An address gets at most one code a minute.
 */
export const EMAIL_CODE = { ttlMs: 15 * 60_000, maxAttempts: 5, resendAfterMs: 60_000, timeoutMs: 10_000 } as const;

const hashOf = (id: string, code: string) => createHash('sha256').update(`${id}:${code}`, 'utf8').digest('hex');

const SYSTEM = { type: 'system' as const, id: 'email-verification' };

const pendingFor = (email: string, now: Date) =>
  and(eq(emailCodes.email, email), isNull(emailCodes.usedAt), gt(emailCodes.expiresAt, now));

export type CodeMail = MailSettings & { targets?: TargetPolicy };

/**
 * Sends a fresh code to `email`. `record` writes the caller's audit event in the same transaction
 * (and may refuse first). The code is in the email only: never in a response or a log.
 */
export async function sendCodeTo(
  db: Database,
  email: string,
  mail: CodeMail,
  record: (tx: Database) => Promise<unknown>,
  now = new Date(),
) {
  if (!mail.smtpUrl)
    throw new Refusal(
      'email_unavailable',
      'This server sends no email (SMTP_URL is not set), so it cannot send a code; ask the operator.',
    );
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await db.transaction(async (tx) => {
    await record(tx);
    const [last] = await tx
      .select()
      .from(emailCodes)
      .where(eq(emailCodes.email, email))
      .orderBy(desc(emailCodes.createdAt))
      .limit(1)
      .for('update');
    const waitMs = last ? last.createdAt.getTime() + EMAIL_CODE.resendAfterMs - now.getTime() : 0;
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      throw rateLimited(
        'code_recently_sent',
        `A code was sent less than a minute ago; check your inbox, or ask again in ${seconds} s.`,
        seconds,
      );
    }
    await tx.update(emailCodes).set({ expiresAt: now }).where(pendingFor(email, now));
    const id = newId('ecd');
    await tx.insert(emailCodes).values({
      id,
      email,
      codeHash: hashOf(id, code),
      expiresAt: new Date(now.getTime() + EMAIL_CODE.ttlMs),
      createdAt: now,
    });
  });
  try {
    await sendMail(mail.smtpUrl, mail.targets ?? targetPolicy(), EMAIL_CODE.timeoutMs, {
      from: mail.from,
      to: email,
      subject: `Your Countersign code: ${code}`,
      text:
        `Your code to prove this address to Countersign is ${code}.\n\nIt works once, for 15 minutes. If you ` +
        `did not ask for it, ignore this email: nobody can use your address without it.\n`,
    });
  } catch {
    throw new Refusal('email_not_sent', 'The code could not be sent just now; try again in a minute.');
  }
  return { email };
}

/** Sends the signed-in person a code for their own address. */
export async function sendEmailCode(db: Database, userId: string, mail: CodeMail, now = new Date()) {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) throw new Refusal('unauthenticated', 'Sign in to the dashboard first.');
  return sendCodeTo(
    db,
    user.email,
    mail,
    async (tx) => {
      const [locked] = await tx
        .select({ verifiedAt: users.emailVerifiedAt })
        .from(users)
        .where(eq(users.id, userId))
        .for('update');
      if (locked?.verifiedAt) throw new Refusal('already_verified', 'Your address is proven already; nothing to do.');
      await recordAccountEvent(tx, userId, {
        type: 'auth.email_code_sent',
        actor: SYSTEM,
        data: { user: userId },
        occurredAt: now,
      });
    },
    now,
  );
}

/** Why a code was refused; each changes nothing but the count of wrong tries. */
export const CODE_REFUSED = {
  none: new Refusal(
    'code_expired',
    'There is no working code: it expired, was used, or a newer one replaced it. Send a new code.',
  ),
  exhausted: new Refusal('code_attempts_exhausted', 'Too many wrong tries for this code; send a new code.'),
  wrong: new Refusal('code_wrong', 'That code is not right; check the latest email and type its six digits.'),
};

type CodeRefused = keyof typeof CODE_REFUSED;

/** Checks the code of `email`: the right one is used up, a wrong one counts a try. */
async function useEmailCode(tx: Database, email: string, code: string, now: Date): Promise<'right' | CodeRefused> {
  const [row] = await tx
    .select()
    .from(emailCodes)
    .where(pendingFor(email, now))
    .orderBy(desc(emailCodes.createdAt))
    .limit(1)
    .for('update');
  if (!row) return 'none';
  if (row.attempts >= EMAIL_CODE.maxAttempts) return 'exhausted';
  if (!timingSafeEqual(Buffer.from(hashOf(row.id, code)), Buffer.from(row.codeHash))) {
    await tx
      .update(emailCodes)
      .set({ attempts: row.attempts + 1 })
      .where(eq(emailCodes.id, row.id));
    return 'wrong';
  }
  await tx.update(emailCodes).set({ usedAt: now }).where(eq(emailCodes.id, row.id));
  return 'right';
}

/**
 * Runs `work` in the transaction that uses up the right code for the address `addressOf` names, so
 * the proof and what it allows commit together (a failure of `work` leaves the code unused). A wrong
 * code commits its counted try and is refused after, with nothing else changed.
 */
export async function withEmailCode<T>(
  db: Database,
  code: string,
  now: Date,
  addressOf: (tx: Database) => Promise<string | undefined>,
  work: (tx: Database) => Promise<T>,
): Promise<T> {
  const outcome: { refused: CodeRefused } | { done: T } = await db.transaction(async (tx) => {
    const email = await addressOf(tx);
    const used = email === undefined ? 'none' : await useEmailCode(tx, email, code, now);
    if (used !== 'right') return { refused: used };
    return { done: await work(tx) };
  });
  if ('refused' in outcome) throw CODE_REFUSED[outcome.refused];
  return outcome.done;
}

/** Whether `email` has a code that may still be typed (a cheap look before slow work such as hashing). */
export async function hasPendingCode(db: Database, email: string, now: Date): Promise<boolean> {
  const [row] = await db.select({ id: emailCodes.id }).from(emailCodes).where(pendingFor(email, now)).limit(1);
  return Boolean(row);
}

const NEW_PASSWORD_REQUIRED = new Refusal(
  'password_required',
  'This account was made by an invitation link: proving the address removes every password and passkey set ' +
    'before and ends its sessions. Send the code with the new password you choose.',
);

/**
 * Checks a code for the signed-in person's address; the right one proves it (see proveAddress). An
 * account an invitation link made needs the new password with it (`hash` is hashed only then), so
 * its owner is never left without one.
 */
export async function verifyEmailCode(
  db: Database,
  userId: string,
  code: string,
  password?: string,
  now = new Date(),
  hash = hashPassword,
): Promise<{ verifiedAt: Date; credentialsCleared: boolean }> {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  const takeover = user !== undefined && awaitsItsOwner(user);
  if (takeover && password === undefined) throw NEW_PASSWORD_REQUIRED;
  const passwordHash = takeover && password !== undefined ? await hash(password) : undefined;
  const proven = await withEmailCode(
    db,
    code,
    now,
    async () => user?.email,
    (tx) =>
      passwordHash
        ? proveWithPassword(tx, userId, 'email_code', passwordHash, now)
        : proveAddress(tx, userId, 'email_code', now),
  );
  return { verifiedAt: now, credentialsCleared: proven.cleared };
}

/**
 * Proves the address and sets the password its owner chose in the same flow (audited
 * `auth.password_changed`); every session of the account ends, so only that password opens it.
 */
export async function proveWithPassword(
  tx: Database,
  userId: string,
  how: 'email_code' | 'oidc',
  passwordHash: string,
  now: Date,
) {
  const proven = await proveAddress(tx, userId, how, now);
  await tx.update(users).set({ passwordHash }).where(eq(users.id, userId));
  await recordAccountEvent(tx, userId, {
    type: 'auth.password_changed',
    actor: { type: 'user', id: userId },
    reasonCode: 'address_proven',
    data: { user: userId },
    occurredAt: now,
  });
  await endAllSessions(tx, userId, 'password_changed', { type: 'user', id: userId }, now);
  return proven;
}

/**
 * An account an invitation link made, whose address nobody has proven yet: whoever held the link
 * made it, so it may hold no credential until the address's owner proves it (and takes it over).
 */
export const awaitsItsOwner = (user: { emailVerifiedAt: Date | null; createdByTenantId: string | null }) =>
  user.emailVerifiedAt === null && user.createdByTenantId !== null;

/**
 * Whether a single sign-on may open `user`, given the provider's `email_verified` claim: an explicit
 * `false` never; an account an invitation link made only on `true`, since nothing else says the
 * person signing in owns its address.
 */
export const ssoMayOpen = (user: Parameters<typeof awaitsItsOwner>[0], emailVerified: unknown) =>
  awaitsItsOwner(user) ? emailVerified === true : emailVerified !== false;

export const OWNER_MUST_PROVE = new Refusal(
  'address_unverified',
  'Prove that this address is yours first (the code we email to it, or a single sign-on that vouches for it): ' +
    'until then this account holds no passkey.',
);

/**
 * Marks the address of an account proven (audited `auth.email_verified`). The first proof of an
 * account an invitation link made takes it over for the address's owner: whoever held the link may
 * have chosen its password or added its passkeys, so every session ends and every password and
 * passkey is removed (audited `auth.credentials_cleared`), in the caller's transaction. An account
 * the CLI made keeps its credentials: the operator on the server set them.
 */
export async function proveAddress(
  tx: Database,
  userId: string,
  how: 'email_code' | 'oidc',
  now: Date,
): Promise<{ proven: boolean; cleared: boolean }> {
  const [user] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
  if (!user || user.emailVerifiedAt) return { proven: false, cleared: false };
  await tx.update(users).set({ emailVerifiedAt: now }).where(eq(users.id, userId));
  await recordAccountEvent(tx, userId, {
    type: 'auth.email_verified',
    actor: { type: 'user', id: userId },
    reasonCode: how,
    data: { user: userId },
    occurredAt: now,
  });
  if (!awaitsItsOwner(user)) return { proven: true, cleared: false };
  await tx.update(users).set({ passwordHash: null }).where(eq(users.id, userId));
  const removed = await tx.delete(passkeys).where(eq(passkeys.userId, userId)).returning({ id: passkeys.id });
  await tx.delete(passkeyChallenges).where(eq(passkeyChallenges.userId, userId));
  // The addresses its old password was right from vouched for whoever knew that password.
  await forgetKnownAddresses(tx, userId);
  const sessions = await endAllSessions(tx, userId, 'address_proven', SYSTEM, now);
  await recordAccountEvent(tx, userId, {
    type: 'auth.credentials_cleared',
    actor: SYSTEM,
    reasonCode: how,
    data: { user: userId, password: user.passwordHash !== null, passkeys: removed.length, sessions },
    occurredAt: now,
  });
  return { proven: true, cleared: true };
}

/** A sign-in through the identity provider, which vouched for the address (`email_verified: true`), proves it too. */
export async function addressProvenBySso(db: Database, userId: string, now = new Date()): Promise<void> {
  await db.transaction((tx) => proveAddress(tx, userId, 'oidc', now));
}
