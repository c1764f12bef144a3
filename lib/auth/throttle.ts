import 'server-only';
import { and, eq, gte, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { type SignInThrottle, signInThrottles, users } from '@/db/schema';
import { recordAccountEvent, signInFailedEvent } from './account-events';
import { isKnownAddress, KNOWN_ADDRESS_MS, rememberAddress } from './known-addresses';

/**
 * The sign-in throttle (docs/design.md §11), counted in PostgreSQL so every replica shares it. Failures
 * are counted per account at an address, per account, and per address; the keys come from the
 * email as typed, so an unknown account is throttled exactly like a known one.
 *
 * An account at an address where its password was right before (within `knownAddressMs`) is held
 * back by that pair's own count only: the account and address counts still count its failures but
 * never delay it, so a spray from a shared address, or guesses at the account from elsewhere, cannot
 * lock its owner out where they usually sign in (docs/security.md "Sign-in throttle").
 */
export const SIGN_IN_THROTTLE = {
  /** Failures are forgotten after this long without one (longer than the longest delay). */
  windowMs: 30 * 60_000,
  /** The longest delay, and the length of a lock. */
  maxDelayMs: 15 * 60_000,
  lockMs: 15 * 60_000,
  /** An address where an account's password was right is remembered this long after the last time. */
  knownAddressMs: KNOWN_ADDRESS_MS,
  scopes: {
    /** One account from one address: delays after 5 failures, a lock after 20. */
    pair: { delayAfter: 5, lockAfter: 20 },
    /** One account from anywhere (a spread-out guess): delays after 20. */
    account: { delayAfter: 20, lockAfter: undefined },
    /** One address across accounts (password spraying): delays after 50. */
    address: { delayAfter: 50, lockAfter: undefined },
  },
} as const;

type ScopeName = keyof typeof SIGN_IN_THROTTLE.scopes;

export type SignInAttempt = { email: string; address: string };
export type Admission = { allowed: true } | { allowed: false; retryAt: Date };

function keysOf(attempt: SignInAttempt): Record<ScopeName, string> {
  const email = attempt.email.toLowerCase();
  return {
    pair: `pair:${email}|${attempt.address}`,
    account: `account:${email}`,
    address: `address:${attempt.address}`,
  };
}

/** Failures that still count now (a quiet window forgets them unless a lock is in force). */
function liveFailures(row: SignInThrottle, now: Date): number {
  const locked = row.lockedUntil !== null && row.lockedUntil > now;
  return !locked && now.getTime() - row.lastFailureAt.getTime() > SIGN_IN_THROTTLE.windowMs ? 0 : row.failures;
}

/** When this key may try again: its lock's end, or an exponential delay after its last failure. */
function retryAt(scope: ScopeName, row: SignInThrottle, now: Date): Date | undefined {
  if (row.lockedUntil && row.lockedUntil > now) return row.lockedUntil;
  const failures = liveFailures(row, now);
  const { delayAfter } = SIGN_IN_THROTTLE.scopes[scope];
  if (failures < delayAfter) return undefined;
  const delay = Math.min(1000 * 2 ** (failures - delayAfter), SIGN_IN_THROTTLE.maxDelayMs);
  const at = new Date(row.lastFailureAt.getTime() + delay);
  return at > now ? at : undefined;
}

/**
 * Call before checking a password. Refuses (changing nothing) while any key is delayed or locked;
 * otherwise counts this attempt as a failure up front, so parallel guesses cannot all slip through
 * before one is counted. A correct password then calls `signInSucceeded`, a wrong one
 * `signInFailed`.
 */
export async function admitSignIn(db: Database, attempt: SignInAttempt, now = new Date()): Promise<Admission> {
  const known = await isKnownAddress(db, attempt, now);
  return admitKeys(db, keysOf(attempt), now, known ? ['pair'] : undefined);
}

/**
 * The same throttle for a public credential other than a password (an invitation's token), counted
 * per address only: every attempt counts as a failure up front, and `addressSucceeded` gives back
 * the one of an attempt that worked. Guessing tokens delays that address's sign-ins too.
 */
export async function admitAddress(db: Database, address: string, now = new Date()): Promise<Admission> {
  return admitKeys(db, { address: keysOf({ email: '', address }).address }, now);
}

export async function addressSucceeded(db: Database, address: string): Promise<void> {
  await giveBack(db, keysOf({ email: '', address }).address);
}

/** Counts an attempt under every key; only the `holding` scopes' delays and locks refuse it. */
async function admitKeys(
  db: Database,
  keys: Partial<Record<ScopeName, string>>,
  now: Date,
  holding?: ScopeName[],
): Promise<Admission> {
  return db.transaction(async (tx) => {
    const names = Object.keys(keys) as ScopeName[];
    const keyOf = (name: ScopeName) => keys[name]!;
    await tx
      .insert(signInThrottles)
      .values(names.map((name) => ({ key: keyOf(name), failures: 0, lastFailureAt: now })))
      .onConflictDoNothing();
    const rows = await tx
      .select()
      .from(signInThrottles)
      .where(inArray(signInThrottles.key, names.map(keyOf)))
      .orderBy(signInThrottles.key)
      .for('update');
    const byKey = new Map(rows.map((row) => [row.key, row]));
    const waits = names
      .filter((name) => holding?.includes(name) ?? true)
      .flatMap((name) => {
        const row = byKey.get(keyOf(name));
        const at = row ? retryAt(name, row, now) : undefined;
        return at ? [at] : [];
      });
    if (waits.length > 0) return { allowed: false, retryAt: new Date(Math.max(...waits.map((at) => at.getTime()))) };
    for (const name of names) {
      const row = byKey.get(keyOf(name));
      await tx
        .update(signInThrottles)
        .set({ failures: (row ? liveFailures(row, now) : 0) + 1, lastFailureAt: now, lockedUntil: null })
        .where(eq(signInThrottles.key, keyOf(name)));
    }
    return { allowed: true };
  });
}

/** Gives back the failure an admitted attempt counted up front at an address. */
function giveBack(db: Database, addressKey: string) {
  return db
    .update(signInThrottles)
    .set({ failures: sql`greatest(${signInThrottles.failures} - 1, 0)` })
    .where(eq(signInThrottles.key, addressKey));
}

/**
 * A correct password: the account's counts are cleared, the address gets back the one
 * `admitSignIn` counted up front — it keeps the failures of other accounts (spraying), but a busy
 * office behind one address is never delayed by its own successful sign-ins — and the address
 * becomes (or stays) known for the account.
 */
export async function signInSucceeded(db: Database, attempt: SignInAttempt, now = new Date()): Promise<void> {
  const keys = keysOf(attempt);
  await db.transaction(async (tx) => {
    await tx
      .delete(signInThrottles)
      .where(or(eq(signInThrottles.key, keys.pair), eq(signInThrottles.key, keys.account)));
    await giveBack(tx, keys.address);
    await rememberAddress(tx, attempt, now);
  });
}

/**
 * A wrong password (already counted by `admitSignIn`). For a known account it is recorded as
 * `auth.sign_in_failed` in the audit trail of every tenant the account belongs to (an unknown
 * email is recorded nowhere). Reaching the lock threshold (and every failure after a lock ran out)
 * locks the account at this address, recorded there too as `auth.sign_in_locked`.
 */
export async function signInFailed(
  db: Database,
  attempt: SignInAttempt,
  now = new Date(),
): Promise<{ locked: boolean }> {
  const keys = keysOf(attempt);
  const { lockAfter } = SIGN_IN_THROTTLE.scopes.pair;
  return db.transaction(async (tx) => {
    const lockedUntil = new Date(now.getTime() + SIGN_IN_THROTTLE.lockMs);
    const [locked] = await tx
      .update(signInThrottles)
      .set({ lockedUntil })
      .where(
        and(
          eq(signInThrottles.key, keys.pair),
          gte(signInThrottles.failures, lockAfter),
          isNull(signInThrottles.lockedUntil),
        ),
      )
      .returning({ key: signInThrottles.key });
    const [account] = await tx
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, attempt.email.toLowerCase()))
      .limit(1);
    if (account) {
      await recordAccountEvent(
        tx,
        account.id,
        signInFailedEvent({
          userId: account.id,
          method: 'credentials',
          reasonCode: 'wrong_password',
          address: attempt.address,
          now,
        }),
      );
      if (locked) {
        await recordAccountEvent(tx, account.id, {
          type: 'auth.sign_in_locked',
          actor: { type: 'system', id: 'sign-in-throttle' },
          reasonCode: 'too_many_failures',
          data: { user: account.id, address: attempt.address, lockedUntil: lockedUntil.toISOString() },
          occurredAt: now,
        });
      }
    }
    return { locked: Boolean(locked) };
  });
}
