import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '@/db';
import { sessions } from '@/db/schema';
import { env } from '@/lib/env';
import { newId } from '@/lib/ids';

/** Why a session ended, as stored and audited. */
export type SessionEndReason = 'signed_out' | 'signed_out_everywhere' | 'password_changed' | 'member_removed' | 'expired' | 'idle';

/** A busy tab must not write on every request: last-seen moves at most this often. */
const TOUCH_EVERY_MS = 60_000;

export type SessionLimits = { maxHours: number; idleMinutes: number };

export function sessionLimits(): SessionLimits {
  const settings = env();
  return { maxHours: settings.SESSION_MAX_HOURS, idleMinutes: settings.SESSION_IDLE_MINUTES };
}

export async function startSession(db: Database, userId: string, now = new Date(), limits = sessionLimits()): Promise<string> {
  const id = newId('ses');
  await db.insert(sessions).values({ id, userId, createdAt: now, lastSeenAt: now, expiresAt: new Date(now.getTime() + limits.maxHours * 3_600_000) });
  return id;
}

/**
 * Whether the session named by a cookie is still alive: not ended, within its absolute lifetime,
 * used within the idle timeout. A live one is marked seen; a dead one is ended with its reason.
 */
export async function sessionIsLive(db: Database, sessionId: string, userId: string, now = new Date(), limits = sessionLimits()): Promise<boolean> {
  const [row] = await db.select().from(sessions).where(eq(sessions.id, sessionId)).limit(1);
  if (!row || row.userId !== userId || row.endedAt) return false;
  const dead: SessionEndReason | undefined =
    now >= row.expiresAt ? 'expired' : now.getTime() - row.lastSeenAt.getTime() >= limits.idleMinutes * 60_000 ? 'idle' : undefined;
  if (dead) {
    await endSession(db, sessionId, dead, now);
    return false;
  }
  if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    await db.update(sessions).set({ lastSeenAt: now }).where(and(eq(sessions.id, sessionId), isNull(sessions.endedAt)));
  }
  return true;
}

export async function endSession(db: Database, sessionId: string, reason: SessionEndReason, now = new Date()): Promise<void> {
  await db.update(sessions).set({ endedAt: now, endReason: reason }).where(and(eq(sessions.id, sessionId), isNull(sessions.endedAt)));
}

/** Ends every open session of a person; returns how many were open. */
export async function endAllSessions(db: Database, userId: string, reason: SessionEndReason, now = new Date()): Promise<number> {
  const ended = await db
    .update(sessions)
    .set({ endedAt: now, endReason: reason })
    .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt)))
    .returning({ id: sessions.id });
  return ended.length;
}
