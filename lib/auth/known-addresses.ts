import { and, eq, gt, lt } from 'drizzle-orm';
import type { Database } from '@/db';
import { signInKnownAddresses, users } from '@/db/schema';

/**
 * The sign-in throttle's known addresses (lib/auth/throttle.ts, docs/security.md): where an
 * account's password was right. Apart from the throttle (which is server-only) because a password
 * change in the CLI forgets them too.
 */

/** An address is known this long after the last correct password from it. */
export const KNOWN_ADDRESS_MS = 90 * 24 * 60 * 60_000;

type Attempt = { email: string; address: string };

/** Whether the typed account's password was right at this address within KNOWN_ADDRESS_MS. */
export async function isKnownAddress(db: Database, attempt: Attempt, now: Date): Promise<boolean> {
  const since = new Date(now.getTime() - KNOWN_ADDRESS_MS);
  const [row] = await db
    .select({ userId: signInKnownAddresses.userId })
    .from(signInKnownAddresses)
    .innerJoin(users, eq(users.id, signInKnownAddresses.userId))
    .where(
      and(
        eq(users.email, attempt.email.toLowerCase()),
        eq(signInKnownAddresses.address, attempt.address),
        gt(signInKnownAddresses.lastSignedInAt, since),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** A correct password at this address: known (again) from now; the account's expired ones go. */
export async function rememberAddress(db: Database, attempt: Attempt, now: Date): Promise<void> {
  const [account] = await db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, attempt.email.toLowerCase()))
    .limit(1);
  if (!account) return;
  await db
    .insert(signInKnownAddresses)
    .values({ userId: account.id, address: attempt.address, lastSignedInAt: now })
    .onConflictDoUpdate({
      target: [signInKnownAddresses.userId, signInKnownAddresses.address],
      set: { lastSignedInAt: now },
    });
  const since = new Date(now.getTime() - KNOWN_ADDRESS_MS);
  await db
    .delete(signInKnownAddresses)
    .where(and(eq(signInKnownAddresses.userId, account.id), lt(signInKnownAddresses.lastSignedInAt, since)));
}

/**
 * A new password (or none) makes the account's known addresses stale: they said that someone who
 * knew the old one signed in there. Called in the transaction that changes the credential.
 */
export async function forgetKnownAddresses(db: Database, userId: string): Promise<void> {
  await db.delete(signInKnownAddresses).where(eq(signInKnownAddresses.userId, userId));
}
