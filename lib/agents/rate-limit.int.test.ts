import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rateLimitBuckets } from '@/db/schema';
import { errorBody } from '@/lib/http/errors';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { consumeRateLimit, pruneRateLimits } from './rate-limit';

/** The per-key rate limit (docs/design.md §4, §10): a fixed one-minute window counted in rows. */
const t = setupTestDatabase();

const MINUTE = 60_000;
/** A window start, and moments inside that window. */
const WINDOW = new Date('2030-01-01T10:00:00.000Z');
const at = (ms: number) => new Date(WINDOW.getTime() + ms);

async function bucket(key: string, windowStart = WINDOW) {
  const [row] = await t.db
    .select()
    .from(rateLimitBuckets)
    .where(and(eq(rateLimitBuckets.key, key), eq(rateLimitBuckets.windowStart, windowStart)));
  return row;
}

describe('consumeRateLimit', () => {
  it('allows perMinute calls in a window and refuses the next with 429 rate_limited and Retry-After', async () => {
    const key = 'agent:key_basic';
    for (let i = 0; i < 3; i++) await expect(consumeRateLimit(t.db, key, 3, at(1_000 + i))).resolves.toBeUndefined();
    const error = await expectApiError(consumeRateLimit(t.db, key, 3, at(15_500)), {
      status: 429,
      kind: 'rate_limit',
      code: 'rate_limited',
    });
    const retryAfter = Number(error.headers['Retry-After']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // 44.5 s are left in the window: retry after 45 s, never earlier than the window reopens.
    expect(retryAfter).toBe(45);
    expect(error.details.retryAfterSeconds).toBe(45);
    expect(errorBody(error).error).toMatchObject({ kind: 'rate_limit', code: 'rate_limited' });
    expect(error.message).not.toContain(key);
  });

  it.each([
    ['at the first millisecond of the window', 0, 60],
    ['in the middle', 30_000, 30],
    ['one millisecond before the window ends', MINUTE - 1, 1],
    ['100 ms before the window ends', MINUTE - 100, 1],
  ])('says Retry-After between 1 and 60 %s', async (_label, offset, expected) => {
    const key = `agent:key_retry_${offset}`;
    await consumeRateLimit(t.db, key, 1, at(0));
    const error = await expectApiError(consumeRateLimit(t.db, key, 1, at(offset)), {
      status: 429,
      code: 'rate_limited',
    });
    expect(error.headers['Retry-After']).toBe(String(expected));
  });

  it('keeps refusing for the rest of the window and starts afresh in the next one', async () => {
    const key = 'agent:key_windows';
    for (let i = 0; i < 2; i++) await consumeRateLimit(t.db, key, 2, at(i));
    await expectApiError(consumeRateLimit(t.db, key, 2, at(10_000)), { status: 429, code: 'rate_limited' });
    await expectApiError(consumeRateLimit(t.db, key, 2, at(MINUTE - 1)), { status: 429, code: 'rate_limited' });
    await expect(consumeRateLimit(t.db, key, 2, at(MINUTE))).resolves.toBeUndefined();
    await expect(consumeRateLimit(t.db, key, 2, at(MINUTE + 59_000))).resolves.toBeUndefined();
    await expectApiError(consumeRateLimit(t.db, key, 2, at(MINUTE + 59_500)), { status: 429, code: 'rate_limited' });
    // The new window's first request cleared the closed one: counters never pile up.
    expect(await bucket(key)).toBeUndefined();
    expect(await bucket(key, at(MINUTE))).toMatchObject({ count: 3 });
  });

  it('gives two keys separate budgets', async () => {
    for (let i = 0; i < 3; i++) await consumeRateLimit(t.db, 'agent:key_one', 3, at(i));
    await expectApiError(consumeRateLimit(t.db, 'agent:key_one', 3, at(10)), { status: 429, code: 'rate_limited' });
    for (let i = 0; i < 3; i++)
      await expect(consumeRateLimit(t.db, 'agent:key_two', 3, at(20 + i))).resolves.toBeUndefined();
    await expectApiError(consumeRateLimit(t.db, 'agent:key_two', 3, at(30)), { status: 429, code: 'rate_limited' });
  });

  it('counts in rows of rate_limit_buckets (what every replica shares)', async () => {
    const key = 'agent:key_rows';
    await consumeRateLimit(t.db, key, 10, at(0));
    await consumeRateLimit(t.db, key, 10, at(5_000));
    expect(await bucket(key)).toEqual({ key, windowStart: WINDOW, count: 2 });
    // A count already at the limit in the table (e.g. written by another replica) refuses here.
    await t.db.update(rateLimitBuckets).set({ count: 10 }).where(eq(rateLimitBuckets.key, key));
    await expectApiError(consumeRateLimit(t.db, key, 10, at(6_000)), { status: 429, code: 'rate_limited' });
  });

  it('clears a key’s closed windows on its next window, and pruneRateLimits clears every key’s old windows', async () => {
    const key = 'agent:key_prune';
    await consumeRateLimit(t.db, key, 10, at(0));
    await consumeRateLimit(t.db, key, 10, at(2 * MINUTE));
    const windowsOf = async (name: string) =>
      (
        await t.db
          .select({ windowStart: rateLimitBuckets.windowStart })
          .from(rateLimitBuckets)
          .where(eq(rateLimitBuckets.key, name))
      )
        .map((row) => row.windowStart.getTime() - WINDOW.getTime())
        .sort((a, b) => a - b);
    expect(await windowsOf(key)).toEqual([2 * MINUTE]);
    // A key that went quiet keeps its last windows until pruned (e.g. written by another replica).
    const quiet = 'agent:key_quiet';
    await t.db
      .insert(rateLimitBuckets)
      .values([0, 2, 3].map((minutes) => ({ key: quiet, windowStart: at(minutes * MINUTE), count: 1 })));
    await pruneRateLimits(t.db, at(4 * MINUTE));
    expect(await windowsOf(quiet)).toEqual([2 * MINUTE, 3 * MINUTE]);
  });
});
