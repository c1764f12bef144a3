import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '@/db/client';
import { rateLimitBuckets } from '@/db/schema';
import { Refusal } from '@/lib/errors/refusal';
import { openReplicaHandle, setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { consumeRateLimit } from './rate-limit';

/** Rate-limit counters are rows: replicas (separate connection pools) share one budget per key. */
const t = setupTestDatabase();
if (t.driver !== 'postgres') {
  throw new Error('rate-limit.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}

let replica: DatabaseHandle;

beforeAll(async () => {
  replica = await openReplicaHandle(t.handle);
});
afterAll(async () => {
  await replica?.close();
});

const WINDOW = new Date('2030-01-01T10:00:00.000Z');
const at = (ms: number) => new Date(WINDOW.getTime() + ms);

describe('rate limits across replicas (PostgreSQL)', () => {
  it('shares the count between two Database handles', async () => {
    const key = 'agent:key_shared';
    await consumeRateLimit(t.db, key, 3, at(0));
    await consumeRateLimit(replica.db, key, 3, at(1));
    await consumeRateLimit(t.db, key, 3, at(2));
    await expectApiError(consumeRateLimit(replica.db, key, 3, at(3)), { status: 429, code: 'rate_limited' });
    await expectApiError(consumeRateLimit(t.db, key, 3, at(4)), { status: 429, code: 'rate_limited' });
    const [row] = await replica.db
      .select()
      .from(rateLimitBuckets)
      .where(and(eq(rateLimitBuckets.key, key), eq(rateLimitBuckets.windowStart, WINDOW)));
    expect(row?.count).toBe(5);
  });

  it('lets exactly perMinute of 30 concurrent calls through, from both handles at once', async () => {
    const key = 'agent:key_burst';
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => consumeRateLimit(i % 2 === 0 ? t.db : replica.db, key, 10, at(i))),
    );
    const passed = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(passed).toHaveLength(10);
    expect(refused).toHaveLength(20);
    for (const result of refused) {
      expect(result.reason).toBeInstanceOf(Refusal);
      expect((result.reason as Refusal).code).toBe('rate_limited');
    }
  });

  it('keeps its counters out of the write-ahead log (an unlogged table: counting waits for no disk flush)', async () => {
    const [row] = await t.db
      .select({ persistence: sql<string>`relpersistence` })
      .from(sql`pg_class`)
      .where(sql`relname = 'rate_limit_buckets'`);
    expect(row?.persistence).toBe('u');
  });
});
