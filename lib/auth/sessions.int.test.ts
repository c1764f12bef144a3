import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { auditEvents, sessions } from '@/db/schema';
import { createTenant, createUser, endSessionsOf, grantRole, removeMember, setPassword } from '@/lib/admin/accounts';
import { Refusal } from '@/lib/errors/refusal';
import { chainAllPending } from '@/lib/events/chainer';
import { setupTestDatabase } from '@/test/db';
import { endAllSessions, endSession, sessionIsLive, startSession } from './sessions';

const t = setupTestDatabase();
const limits = { maxHours: 12, idleMinutes: 30 };
const minutes = (from: Date, n: number) => new Date(from.getTime() + n * 60_000);

let userId: string;
let counter = 0;

beforeEach(async () => {
  counter += 1;
  userId = (
    await createUser(t.db, {
      email: `person${counter}@sessions.test`,
      name: 'Person',
      password: 'a long enough password',
    })
  ).id;
});

async function endReason(sessionId: string) {
  const [row] = await t.db.select().from(sessions).where(eq(sessions.id, sessionId));
  return row?.endReason;
}

describe('a session row decides whether a cookie is worth anything', () => {
  it('lives while used within the idle timeout, up to its absolute lifetime', async () => {
    const start = new Date('2026-11-30T08:00:00Z');
    const id = await startSession(t.db, userId, 'credentials', start, limits);
    // Used every 20 minutes: alive through hour 11:40, dead at 12:00 however busy.
    for (let at = 20; at < 12 * 60; at += 20) {
      expect(await sessionIsLive(t.db, id, userId, minutes(start, at), limits)).toBe(true);
    }
    expect(await sessionIsLive(t.db, id, userId, minutes(start, 12 * 60), limits)).toBe(false);
    expect(await endReason(id)).toBe('expired');
    // Dead stays dead, even inside what would have been its lifetime.
    expect(await sessionIsLive(t.db, id, userId, minutes(start, 10), limits)).toBe(false);
  });

  it('ends after the idle timeout', async () => {
    const start = new Date('2026-11-30T08:00:00Z');
    const id = await startSession(t.db, userId, 'credentials', start, limits);
    expect(await sessionIsLive(t.db, id, userId, minutes(start, 29), limits)).toBe(true);
    expect(await sessionIsLive(t.db, id, userId, minutes(start, 29 + 30), limits)).toBe(false);
    expect(await endReason(id)).toBe('idle');
  });

  it('is refused for another person, an unknown id, or once ended', async () => {
    const id = await startSession(t.db, userId, 'credentials', new Date(), limits);
    const other = (
      await createUser(t.db, {
        email: `other${counter}@sessions.test`,
        name: 'Other',
        password: 'a long enough password',
      })
    ).id;
    expect(await sessionIsLive(t.db, id, other, new Date(), limits)).toBe(false);
    expect(await sessionIsLive(t.db, 'ses_unknown', userId, new Date(), limits)).toBe(false);
    await endSession(t.db, id, 'signed_out');
    expect(await sessionIsLive(t.db, id, userId, new Date(), limits)).toBe(false);
    expect(await endReason(id)).toBe('signed_out');
  });

  it('"sign out everywhere" ends every open session of that person only', async () => {
    const mine = [await startSession(t.db, userId, 'credentials'), await startSession(t.db, userId, 'credentials')];
    const other = (
      await createUser(t.db, {
        email: `bystander${counter}@sessions.test`,
        name: 'B',
        password: 'a long enough password',
      })
    ).id;
    const theirs = await startSession(t.db, other, 'credentials');
    expect(await endAllSessions(t.db, userId, 'signed_out_everywhere', { type: 'user', id: userId })).toBe(2);
    for (const id of mine) expect(await sessionIsLive(t.db, id, userId)).toBe(false);
    expect(await sessionIsLive(t.db, theirs, other)).toBe(true);
  });

  it('a password change ends every session', async () => {
    const id = await startSession(t.db, userId, 'credentials');
    await setPassword(t.db, userId, 'another long password');
    expect(await sessionIsLive(t.db, id, userId)).toBe(false);
    expect(await endReason(id)).toBe('password_changed');
  });

  it('end-sessions from the command line ends them by email', async () => {
    const id = await startSession(t.db, userId, 'credentials');
    await expect(endSessionsOf(t.db, `PERSON${counter}@sessions.test`)).resolves.toMatchObject({ sessionsEnded: 1 });
    expect(await sessionIsLive(t.db, id, userId)).toBe(false);
  });
});

describe('removing a member', () => {
  it('ends their access to that tenant only (their sessions stay), audited, and never removes the last admin', async () => {
    const tenant = `rm-${counter}`;
    await createTenant(t.db, { id: tenant, name: tenant });
    const email = `person${counter}@sessions.test`;
    await grantRole(t.db, { tenantId: tenant, email, role: 'admin' });
    const id = await startSession(t.db, userId, 'credentials');

    const lastAdmin = await removeMember(t.db, { tenantId: tenant, email }).catch((error: unknown) => error);
    expect(lastAdmin).toBeInstanceOf(Refusal);
    expect(await sessionIsLive(t.db, id, userId)).toBe(true);

    const second = await createUser(t.db, {
      email: `second${counter}@sessions.test`,
      name: 'Second',
      password: 'a long enough password',
    });
    await grantRole(t.db, { tenantId: tenant, email: second.email, role: 'admin' });
    await expect(removeMember(t.db, { tenantId: tenant, email })).resolves.toEqual({ userId, role: 'admin' });
    expect(await sessionIsLive(t.db, id, userId)).toBe(true);
    await chainAllPending(t.db);
    const events = await t.db.select().from(auditEvents).where(eq(auditEvents.tenantId, tenant));
    expect(events.map((e) => e.type)).toContain('membership.removed');
    await expect(removeMember(t.db, { tenantId: tenant, email })).rejects.toBeInstanceOf(Refusal);
  });
});
