import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents } from '@/db/schema';
import { createTenant, createUser, grantRole } from '@/lib/admin/accounts';
import { chainAllPending } from '@/lib/events/chainer';
import { setupTestDatabase } from '@/test/db';
import { admitSignIn, SIGN_IN_THROTTLE, type SignInAttempt, signInFailed, signInSucceeded } from './throttle';

const t = setupTestDatabase();
const seconds = (from: Date, n: number) => new Date(from.getTime() + n * 1000);

/** One wrong password at `now`: admitted (and counted) or refused. */
async function fail(attempt: SignInAttempt, now: Date): Promise<boolean> {
  const admission = await admitSignIn(t.db, attempt, now);
  if (admission.allowed) await signInFailed(t.db, attempt, now);
  return admission.allowed;
}

describe('sign-in throttle', () => {
  it('lets 5 failures through, then delays exponentially (same for unknown accounts)', async () => {
    await createUser(t.db, { email: 'known@throttle.test', name: 'Known', password: 'a long enough password' });
    const outcomes: Record<string, boolean[]> = {};
    for (const email of ['known@throttle.test', 'nobody@throttle.test']) {
      const attempt = { email, address: '192.0.2.1' };
      const start = new Date('2026-11-30T09:00:00Z');
      const seen: boolean[] = [];
      for (let i = 0; i < 7; i++) seen.push(await fail(attempt, start));
      // After the 5th failure: wait 1 s, then 2 s after the 6th.
      seen.push(await fail(attempt, seconds(start, 1)));
      seen.push(await fail(attempt, seconds(start, 2)));
      seen.push(await fail(attempt, seconds(start, 3)));
      outcomes[email] = seen;
    }
    expect(outcomes['known@throttle.test']).toEqual([true, true, true, true, true, false, false, true, false, true]);
    expect(outcomes['nobody@throttle.test']).toEqual(outcomes['known@throttle.test']);
  });

  it('refuses even the right password while delayed; a success then clears the account', async () => {
    const attempt = { email: 'right@throttle.test', address: '192.0.2.2' };
    const start = new Date('2026-11-30T09:00:00Z');
    for (let i = 0; i < 5; i++) await fail(attempt, start);
    expect(await admitSignIn(t.db, attempt, seconds(start, 0.5))).toMatchObject({ allowed: false });
    const later = await admitSignIn(t.db, attempt, seconds(start, 1));
    expect(later.allowed).toBe(true);
    await signInSucceeded(t.db, attempt);
    for (let i = 0; i < 5; i++) expect(await fail(attempt, seconds(start, 2))).toBe(true);
  });

  it('counts per address: another address is not delayed by this one', async () => {
    const start = new Date('2026-11-30T09:00:00Z');
    for (let i = 0; i < 5; i++) await fail({ email: 'pair@throttle.test', address: '192.0.2.3' }, start);
    expect(await fail({ email: 'pair@throttle.test', address: '192.0.2.3' }, start)).toBe(false);
    expect(await fail({ email: 'pair@throttle.test', address: '192.0.2.4' }, start)).toBe(true);
  });

  it('never delays an address for its successful sign-ins (an office behind one address), yet still counts its failures', async () => {
    const start = new Date('2026-11-30T09:00:00Z');
    const { address } = SIGN_IN_THROTTLE.scopes;
    for (let i = 0; i < address.delayAfter * 2; i++) {
      const attempt = { email: `person${i % 7}@office.test`, address: '203.0.113.80' };
      expect(await admitSignIn(t.db, attempt, start)).toEqual({ allowed: true });
      await signInSucceeded(t.db, attempt);
    }
    for (let i = 0; i < address.delayAfter; i++)
      expect(await fail({ email: `guess${i}@office.test`, address: '203.0.113.80' }, start)).toBe(true);
    expect(await fail({ email: 'one-more@office.test', address: '203.0.113.80' }, start)).toBe(false);
  });

  it('delays an account guessed at from many addresses, and an address spraying many accounts', async () => {
    const start = new Date('2026-11-30T09:00:00Z');
    const { account, address } = SIGN_IN_THROTTLE.scopes;
    for (let i = 0; i < account.delayAfter; i++)
      expect(await fail({ email: 'spread@throttle.test', address: `198.51.100.${i}` }, start)).toBe(true);
    expect(await fail({ email: 'spread@throttle.test', address: '198.51.100.250' }, start)).toBe(false);
    for (let i = 0; i < address.delayAfter; i++)
      expect(await fail({ email: `user${i}@spray.test`, address: '203.0.113.7' }, start)).toBe(true);
    expect(await fail({ email: 'fresh@spray.test', address: '203.0.113.7' }, start)).toBe(false);
  });

  it('locks an account at an address for 15 minutes after 20 failures, audited in its tenants', async () => {
    await createTenant(t.db, { id: 'lockco', name: 'LockCo' });
    const user = await createUser(t.db, {
      email: 'locked@throttle.test',
      name: 'Locked',
      password: 'a long enough password',
    });
    await grantRole(t.db, { tenantId: 'lockco', email: user.email, role: 'approver' });
    const attempt = { email: user.email, address: '192.0.2.9' };
    let now = new Date('2026-11-30T09:00:00Z');
    let failures = 0;
    // Wait out each delay as a patient attacker would, until the lock.
    while (failures < SIGN_IN_THROTTLE.scopes.pair.lockAfter) {
      const admission = await admitSignIn(t.db, attempt, now);
      if (admission.allowed) {
        failures += 1;
        await signInFailed(t.db, attempt, now);
      } else now = admission.retryAt;
    }
    const lockedAt = now;
    const refused = await admitSignIn(t.db, attempt, seconds(lockedAt, 14 * 60));
    expect(refused).toEqual({ allowed: false, retryAt: seconds(lockedAt, 15 * 60) });
    await chainAllPending(t.db);
    const locks = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, 'lockco'), eq(auditEvents.type, 'auth.sign_in_locked')));
    expect(locks).toHaveLength(1);
    expect(locks[0]).toMatchObject({ reasonCode: 'too_many_failures', data: { user: user.id, address: '192.0.2.9' } });
    // After the lock one more try is admitted; failing it locks again at once.
    expect(await fail(attempt, seconds(lockedAt, 15 * 60))).toBe(true);
    expect(await admitSignIn(t.db, attempt, seconds(lockedAt, 15 * 60 + 1))).toMatchObject({ allowed: false });
  });

  it('forgets failures after a quiet window', async () => {
    const attempt = { email: 'quiet@throttle.test', address: '192.0.2.10' };
    const start = new Date('2026-11-30T09:00:00Z');
    for (let i = 0; i < 5; i++) await fail(attempt, start);
    const afterWindow = new Date(start.getTime() + SIGN_IN_THROTTLE.windowMs + 1000);
    for (let i = 0; i < 5; i++) expect(await fail(attempt, afterWindow)).toBe(true);
  });
});
