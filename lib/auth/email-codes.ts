import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from '@/db';
import { emailCodes, users } from '@/db/schema';
import { DomainError, rateLimited } from '@/lib/errors/domain-error';
import { newId } from '@/lib/ids';
import { targetPolicy, type TargetPolicy } from '@/lib/notifications/outbound';
import { sendMail, type MailSettings } from '@/lib/notifications/send';
import { recordAccountEvent } from './account-events';

/**
 * Proving an address: a six-digit code sent to it over SMTP (the operator's SMTP_URL, never a
 * tenant's channel, so no tenant admin can read it). Only its SHA-256 (salted with the code's id)
 * is stored; it expires after 15 minutes, dies after 5 wrong tries, works once, and a new one
 * replaces the pending one. A code is asked for at most once a minute.
 */
export const EMAIL_CODE = { ttlMs: 15 * 60_000, maxAttempts: 5, resendAfterMs: 60_000, timeoutMs: 10_000 } as const;

const hashOf = (id: string, code: string) => createHash('sha256').update(`${id}:${code}`, 'utf8').digest('hex');

const SYSTEM = { type: 'system' as const, id: 'email-verification' };

/** Sends the person a fresh code. The code is in the email only: never in a response or a log. */
export async function sendEmailCode(db: Database, userId: string, mail: MailSettings & { targets?: TargetPolicy }, now = new Date()) {
  if (!mail.smtpUrl) throw new DomainError('unavailable', 'email_unavailable', 'This server sends no email (SMTP_URL is not set), so it cannot send a code; ask the operator.');
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const email = await db.transaction(async (tx) => {
    const [user] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
    if (!user) throw new DomainError('unauthenticated', 'unauthenticated', 'Sign in to the dashboard first.');
    if (user.emailVerifiedAt) throw new DomainError('conflict', 'already_verified', 'Your address is proven already; nothing to do.');
    const [last] = await tx.select().from(emailCodes).where(eq(emailCodes.userId, userId)).orderBy(desc(emailCodes.createdAt)).limit(1);
    const waitMs = last ? last.createdAt.getTime() + EMAIL_CODE.resendAfterMs - now.getTime() : 0;
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      throw rateLimited('code_recently_sent', `A code was sent less than a minute ago; check your inbox, or ask again in ${seconds} s.`, seconds);
    }
    await tx.update(emailCodes).set({ expiresAt: now }).where(and(eq(emailCodes.userId, userId), isNull(emailCodes.usedAt), gt(emailCodes.expiresAt, now)));
    const id = newId('ecd');
    await tx.insert(emailCodes).values({ id, userId, codeHash: hashOf(id, code), expiresAt: new Date(now.getTime() + EMAIL_CODE.ttlMs), createdAt: now });
    await recordAccountEvent(tx, userId, { type: 'auth.email_code_sent', actor: SYSTEM, data: { user: userId }, occurredAt: now });
    return user.email;
  });
  try {
    await sendMail(mail.smtpUrl, mail.targets ?? targetPolicy(), EMAIL_CODE.timeoutMs, {
      from: mail.from,
      to: email,
      subject: `Your Countersign code: ${code}`,
      text: `Your code to prove this address to Countersign is ${code}.\n\nIt works once, for 15 minutes. If you did not ask for it, ignore this email: nobody can use your address without it.\n`,
    });
  } catch {
    throw new DomainError('upstream_failed', 'email_not_sent', 'The code could not be sent just now; try again in a minute.');
  }
  return { email };
}

/** Why a code was refused; each changes nothing but the count of wrong tries. */
const REFUSED = {
  none: new DomainError('gone', 'code_expired', 'There is no working code: it expired, was used, or a newer one replaced it. Send a new code.'),
  exhausted: new DomainError('rate_limited', 'code_attempts_exhausted', 'Too many wrong tries for this code; send a new code.'),
  wrong: new DomainError('refused', 'code_wrong', 'That code is not right; check the latest email and type its six digits.'),
};

/** Checks a code; the right one marks the address proven (audited `auth.email_verified`). */
export async function verifyEmailCode(db: Database, userId: string, code: string, now = new Date()): Promise<{ verifiedAt: Date }> {
  const outcome = await db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(emailCodes)
      .where(and(eq(emailCodes.userId, userId), isNull(emailCodes.usedAt), gt(emailCodes.expiresAt, now)))
      .orderBy(desc(emailCodes.createdAt))
      .limit(1)
      .for('update');
    if (!row) return 'none' as const;
    if (row.attempts >= EMAIL_CODE.maxAttempts) return 'exhausted' as const;
    const right = timingSafeEqual(Buffer.from(hashOf(row.id, code)), Buffer.from(row.codeHash));
    if (!right) {
      await tx.update(emailCodes).set({ attempts: row.attempts + 1 }).where(eq(emailCodes.id, row.id));
      return 'wrong' as const;
    }
    await tx.update(emailCodes).set({ usedAt: now }).where(eq(emailCodes.id, row.id));
    await markProven(tx, userId, 'email_code', now);
    return 'verified' as const;
  });
  if (outcome !== 'verified') throw REFUSED[outcome];
  return { verifiedAt: now };
}

async function markProven(tx: Database, userId: string, how: 'email_code' | 'oidc', now: Date) {
  const proven = await tx.update(users).set({ emailVerifiedAt: now }).where(and(eq(users.id, userId), isNull(users.emailVerifiedAt))).returning({ id: users.id });
  if (proven.length > 0) await recordAccountEvent(tx, userId, { type: 'auth.email_verified', actor: { type: 'user', id: userId }, reasonCode: how, data: { user: userId }, occurredAt: now });
}

/** A sign-in through the identity provider, which vouched for the address (`email_verified: true`), proves it too. */
export async function addressProvenBySso(db: Database, userId: string, now = new Date()): Promise<void> {
  await db.transaction((tx) => markProven(tx, userId, 'oidc', now));
}
