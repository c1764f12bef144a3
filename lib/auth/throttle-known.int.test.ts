import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signInKnownAddresses, tenants, users } from '@/db/schema';
import { createUser, setPassword } from '@/lib/admin/accounts';
import { setupTestDatabase } from '@/test/db';
import { proveAddress } from './email-codes';
import { admitSignIn, SIGN_IN_THROTTLE, type SignInAttempt, signInFailed, signInSucceeded } from './throttle';

/**
 * issue 35 §6: failures sprayed from one address (a shared NAT, or everyone behind an untrusted
 * proxy) must not lock out an account that has signed in from that address before, and failures
 * at an account from elsewhere must not lock its owner out of their usual address. The pair's own
 * count still holds, and everyone else is still slowed.
 */
const t = setupTestDatabase();
const start = new Date('2026-11-30T09:00:00Z');
const after = (from: Date, ms: number) => new Date(from.getTime() + ms);
const PASSWORD = 'a long enough password';

/** Wrong passwords until `count` were checked, waiting out every delay as a patient attacker does. */
async function failPatiently(attempts: (i: number) => SignInAttempt, count: number, from: Date): Promise<Date> {
  let now = from;
  for (let checked = 0; checked < count; ) {
    const attempt = attempts(checked);
    const admission = await admitSignIn(t.db, attempt, now);
    if (admission.allowed) {
      await signInFailed(t.db, attempt, now);
      checked += 1;
    } else now = admission.retryAt;
  }
  return now;
}

async function signIn(attempt: SignInAttempt, now: Date) {
  const admission = await admitSignIn(t.db, attempt, now);
  if (admission.allowed) await signInSucceeded(t.db, attempt, now);
  return admission;
}

describe('sign-in throttle: an account at an address it signed in from before', () => {
  it('is let through while the address is held back for a spray across other accounts', async () => {
    const alice = await createUser(t.db, { email: 'alice@nat.test', name: 'Alice', password: PASSWORD });
    const office = '203.0.113.50';
    expect(await signIn({ email: alice.email, address: office }, start)).toEqual({ allowed: true });
    const sprayed = await failPatiently(
      (i) => ({ email: `victim${i}@nat.test`, address: office }),
      SIGN_IN_THROTTLE.scopes.address.delayAfter + 10,
      start,
    );
    // The spray is still slowed: a fresh account from that address waits.
    expect(await admitSignIn(t.db, { email: 'bob@nat.test', address: office }, sprayed)).toMatchObject({
      allowed: false,
    });
    // Alice, known there (typed in any case), is not.
    expect(await admitSignIn(t.db, { email: 'ALICE@nat.test', address: office }, sprayed)).toEqual({ allowed: true });
  });

  it('is let through while its account is held back for guesses from many other addresses', async () => {
    const carol = await createUser(t.db, { email: 'carol@nat.test', name: 'Carol', password: PASSWORD });
    const home = '198.51.100.20';
    await signIn({ email: carol.email, address: home }, start);
    const guessed = await failPatiently(
      (i) => ({ email: carol.email, address: `192.0.2.${i % 250}` }),
      SIGN_IN_THROTTLE.scopes.account.delayAfter + 10,
      start,
    );
    expect(await admitSignIn(t.db, { email: carol.email, address: '192.0.2.251' }, guessed)).toMatchObject({
      allowed: false,
    });
    expect(await admitSignIn(t.db, { email: carol.email, address: home }, guessed)).toEqual({ allowed: true });
  });

  it('still delays and locks the pair on its own failures (a guesser behind the same address)', async () => {
    const dave = await createUser(t.db, { email: 'dave@nat.test', name: 'Dave', password: PASSWORD });
    const attempt = { email: dave.email, address: '203.0.113.60' };
    await signIn(attempt, start);
    const { delayAfter, lockAfter } = SIGN_IN_THROTTLE.scopes.pair;
    for (let i = 0; i < delayAfter; i++) {
      expect(await admitSignIn(t.db, attempt, start)).toEqual({ allowed: true });
      await signInFailed(t.db, attempt, start);
    }
    expect(await admitSignIn(t.db, attempt, start)).toMatchObject({ allowed: false });
    const locked = await failPatiently(() => attempt, lockAfter - delayAfter, start);
    expect(await admitSignIn(t.db, attempt, after(locked, 60_000))).toMatchObject({ allowed: false });
  });

  it('is tied to the account: another account from the same address is held back', async () => {
    const erin = await createUser(t.db, { email: 'erin@nat.test', name: 'Erin', password: PASSWORD });
    await createUser(t.db, { email: 'frank@nat.test', name: 'Frank', password: PASSWORD });
    const cafe = '203.0.113.70';
    await signIn({ email: erin.email, address: cafe }, start);
    const sprayed = await failPatiently(
      (i) => ({ email: `other${i}@cafe.test`, address: cafe }),
      SIGN_IN_THROTTLE.scopes.address.delayAfter + 10,
      start,
    );
    expect(await admitSignIn(t.db, { email: 'frank@nat.test', address: cafe }, sprayed)).toMatchObject({
      allowed: false,
    });
    expect(await admitSignIn(t.db, { email: erin.email, address: '203.0.113.71' }, sprayed)).toEqual({ allowed: true });
  });

  it('is forgotten after the remembered span without a sign-in from there', async () => {
    const gina = await createUser(t.db, { email: 'gina@nat.test', name: 'Gina', password: PASSWORD });
    const office = '203.0.113.80';
    await signIn({ email: gina.email, address: office }, start);
    const later = after(start, SIGN_IN_THROTTLE.knownAddressMs + 1000);
    const sprayed = await failPatiently(
      (i) => ({ email: `late${i}@nat.test`, address: office }),
      SIGN_IN_THROTTLE.scopes.address.delayAfter + 10,
      later,
    );
    expect(await admitSignIn(t.db, { email: gina.email, address: office }, sprayed)).toMatchObject({ allowed: false });
  });

  it('keeps only the addresses of the remembered span: older ones go with the next sign-in', async () => {
    const ivy = await createUser(t.db, { email: 'ivy@nat.test', name: 'Ivy', password: PASSWORD });
    await signIn({ email: ivy.email, address: '203.0.113.100' }, start);
    await signIn({ email: ivy.email, address: '203.0.113.101' }, after(start, SIGN_IN_THROTTLE.knownAddressMs / 2));
    await signIn({ email: ivy.email, address: '203.0.113.102' }, after(start, SIGN_IN_THROTTLE.knownAddressMs + 1000));
    const rows = await t.db
      .select({ address: signInKnownAddresses.address })
      .from(signInKnownAddresses)
      .where(eq(signInKnownAddresses.userId, ivy.id));
    expect(rows.map((row) => row.address).sort()).toEqual(['203.0.113.101', '203.0.113.102']);
  });

  it('is forgotten when the password changes: it vouched for whoever knew the old one', async () => {
    const jo = await createUser(t.db, { email: 'jo@nat.test', name: 'Jo', password: PASSWORD });
    const office = '203.0.113.110';
    await signIn({ email: jo.email, address: office }, start);
    await setPassword(t.db, jo.id, 'another long enough password');
    const sprayed = await failPatiently(
      (i) => ({ email: `reset${i}@nat.test`, address: office }),
      SIGN_IN_THROTTLE.scopes.address.delayAfter + 10,
      start,
    );
    expect(await admitSignIn(t.db, { email: jo.email, address: office }, sprayed)).toMatchObject({ allowed: false });
  });

  it('is forgotten when the owner proves the address of an account a link made: whoever set its password knew it', async () => {
    await t.db.insert(tenants).values({ id: 'nat', name: 'Nat' }).onConflictDoNothing();
    const kim = await createUser(t.db, { email: 'kim@nat.test', name: 'Kim', password: PASSWORD });
    await t.db.update(users).set({ createdByTenantId: 'nat' }).where(eq(users.id, kim.id));
    const office = '203.0.113.120';
    await signIn({ email: kim.email, address: office }, start);
    expect(await t.db.select().from(signInKnownAddresses).where(eq(signInKnownAddresses.userId, kim.id))).toHaveLength(
      1,
    );
    await t.db.transaction((tx) => proveAddress(tx, kim.id, 'email_code', start));
    expect(await t.db.select().from(signInKnownAddresses).where(eq(signInKnownAddresses.userId, kim.id))).toEqual([]);
  });

  it('is learned only from a correct password, never from a failure or an unknown email', async () => {
    await createUser(t.db, { email: 'hal@nat.test', name: 'Hal', password: PASSWORD });
    const office = '203.0.113.90';
    await failPatiently(() => ({ email: 'hal@nat.test', address: office }), 1, start);
    await signIn({ email: 'ghost@nat.test', address: office }, start);
    const sprayed = await failPatiently(
      (i) => ({ email: `spray${i}@nat.test`, address: office }),
      SIGN_IN_THROTTLE.scopes.address.delayAfter + 10,
      start,
    );
    expect(await admitSignIn(t.db, { email: 'hal@nat.test', address: office }, sprayed)).toMatchObject({
      allowed: false,
    });
  });
});
