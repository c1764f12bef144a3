import 'server-only';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { rateLimitBuckets } from '@/db/schema';
import { rateLimited } from '@/lib/errors/refusal';

const WINDOW_MS = 60_000;

/**
 * A fixed one-minute window per key, counted in the database so every replica shares it.
 * Throws 429 with Retry-After once the key has used its budget for the current minute.
 */
export async function consumeRateLimit(db: Database, key: string, perMinute: number, now = new Date()): Promise<void> {
  const windowStart = new Date(Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS);
  const [row] = await db
    .insert(rateLimitBuckets)
    .values({ key, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: [rateLimitBuckets.key, rateLimitBuckets.windowStart],
      set: { count: sql`${rateLimitBuckets.count} + 1` },
    })
    .returning({ count: rateLimitBuckets.count });
  // The first request of a window clears this key's closed windows, so counters never pile up.
  if (row?.count === 1)
    await db
      .delete(rateLimitBuckets)
      .where(and(eq(rateLimitBuckets.key, key), lt(rateLimitBuckets.windowStart, windowStart)));
  if ((row?.count ?? 0) <= perMinute) return;
  const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - now.getTime()) / 1000));
  throw rateLimited(
    'rate_limited',
    `This key may send ${perMinute} requests a minute; retry in ${retryAfter} s.`,
    retryAfter,
  );
}

/** Old windows are worthless after they close; the worker (or any caller) may prune them. */
export async function pruneRateLimits(db: Database, now = new Date()): Promise<void> {
  await db.delete(rateLimitBuckets).where(lt(rateLimitBuckets.windowStart, new Date(now.getTime() - 2 * WINDOW_MS)));
}
