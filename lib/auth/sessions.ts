import { and, eq, isNull, type SQL } from 'drizzle-orm';
import type { Database } from '@/db';
import { sessions, users } from '@/db/schema';
import { env } from '@/lib/env';
import { newId } from '@/lib/ids';
import { recordAccountEvent } from './account-events';

/** Why a session ended, as stored and audited. */
export type SessionEndReason =
  | 'signed_out'
  | 'signed_out_everywhere'
  | 'password_changed'
  | 'address_proven'
  | 'member_removed'
  | 'expired'
  | 'idle';

/** How a person proved who they are. */
export type SignInMethod = 'credentials' | 'oidc';

/** Who ended a session, when not the person themself: the clock (idle, expired) or an administrator. */
export type SessionActor = { type: 'user' | 'system'; id: string };

/** Sessions that die of age or idleness are ended by this actor. */
export const SESSION_CLOCK: SessionActor = { type: 'system', id: 'session-timeout' };

/** A busy tab must not write on every request: last-seen moves at most this often. */
const TOUCH_EVERY_MS = 60_000;

export type SessionLimits = { maxHours: number; idleMinutes: number };

export function sessionLimits(): SessionLimits {
  const settings = env();
  return { maxHours: settings.SESSION_MAX_HOURS, idleMinutes: settings.SESSION_IDLE_MINUTES };
}

/**
 * A successful sign-in: the session row and its `auth.signed_in` event in each of the person's tenants, in one
 * transaction.
 */
export async function startSession(
  db: Database,
  userId: string,
  method: SignInMethod,
  now = new Date(),
  limits = sessionLimits(),
): Promise<string> {
  return db.transaction((tx) => openSession(tx, userId, method, now, limits));
}

/**
 * A sign-in with the password whose hash was just checked: the session starts only if that is
 * still the account's password, under the account's row lock, so a password changed or cleared
 * while it was checked (proving the address of a link-made account) opens nothing.
 */
export async function startPasswordSession(
  db: Database,
  userId: string,
  checkedHash: string,
  now = new Date(),
  limits = sessionLimits(),
): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const [user] = await tx
      .select({ passwordHash: users.passwordHash })
      .from(users)
      .where(eq(users.id, userId))
      .for('update');
    if (user?.passwordHash !== checkedHash) return undefined;
    return openSession(tx, userId, 'credentials', now, limits);
  });
}

async function openSession(tx: Database, userId: string, method: SignInMethod, now: Date, limits: SessionLimits) {
  const id = newId('ses');
  await tx.insert(sessions).values({
    id,
    userId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + limits.maxHours * 3_600_000),
  });
  await recordAccountEvent(tx, userId, {
    type: 'auth.signed_in',
    actor: { type: 'user', id: userId },
    reasonCode: method,
    data: { user: userId, session: id, method },
    occurredAt: now,
  });
  return id;
}

/**
 * Whether the session named by a cookie is still alive: not ended, within its absolute lifetime,
 * used within the idle timeout. A live one is marked seen; a dead one is ended with its reason.
 */
export async function sessionIsLive(
  db: Database,
  sessionId: string,
  userId: string,
  now = new Date(),
  limits = sessionLimits(),
): Promise<boolean> {
  const [row] = await db.select().from(sessions).where(eq(sessions.id, sessionId)).limit(1);
  if (!row || row.userId !== userId || row.endedAt) return false;
  const dead: SessionEndReason | undefined =
    now >= row.expiresAt
      ? 'expired'
      : now.getTime() - row.lastSeenAt.getTime() >= limits.idleMinutes * 60_000
        ? 'idle'
        : undefined;
  if (dead) {
    await endSession(db, sessionId, dead, now, SESSION_CLOCK);
    return false;
  }
  if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    await db
      .update(sessions)
      .set({ lastSeenAt: now })
      .where(and(eq(sessions.id, sessionId), isNull(sessions.endedAt)));
  }
  return true;
}

/**
 * Ends one open session (nothing if it already ended), with its `session.ended` event; by default the person ended it.
 */
export async function endSession(
  db: Database,
  sessionId: string,
  reason: SessionEndReason,
  now = new Date(),
  actor?: SessionActor,
): Promise<void> {
  await endOpenSessions(db, eq(sessions.id, sessionId), reason, now, actor);
}

/** Ends every open session of a person, each with its `session.ended` event; returns how many were open. */
export async function endAllSessions(
  db: Database,
  userId: string,
  reason: SessionEndReason,
  actor: SessionActor,
  now = new Date(),
): Promise<number> {
  return endOpenSessions(db, eq(sessions.userId, userId), reason, now, actor);
}

/** Ends the open sessions that match, and records each end in every tenant of its person, in one transaction. */
async function endOpenSessions(
  db: Database,
  which: SQL,
  reason: SessionEndReason,
  now: Date,
  actor?: SessionActor,
): Promise<number> {
  return db.transaction(async (tx) => {
    const ended = await tx
      .update(sessions)
      .set({ endedAt: now, endReason: reason })
      .where(and(which, isNull(sessions.endedAt)))
      .returning({ id: sessions.id, userId: sessions.userId });
    for (const row of ended) {
      await recordAccountEvent(tx, row.userId, {
        type: 'session.ended',
        actor: actor ?? { type: 'user', id: row.userId },
        reasonCode: reason,
        data: { user: row.userId, session: row.id },
        occurredAt: now,
      });
    }
    return ended.length;
  });
}
