import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '@/db';

/** The notification channel that says a record every process may keep in memory changed. */
export const CACHE_CHANNEL = 'countersign_cache';

/** A change to what the read cache keeps (lib/cache/read-cache.ts), as the notification carries it. */
export type CacheChange =
  /** A new version of an action's routing policy in a tenant. */
  | { kind: 'policy'; tenantId: string; action: string; version: number }
  /** A tenant's rollout of an action's contract versions (status or sunset). */
  | { kind: 'contracts'; tenantId: string; action: string }
  /** An agent key created, revoked, rotated (its expiry set) or otherwise changed. */
  | { kind: 'agent_key'; tenantId: string; keyId: string }
  /** A standing grant made in a tenant (one ending needs no word: a kept "there may be one" only costs a look). */
  | { kind: 'grants'; tenantId: string }
  /** A new version of one of a tenant's action definitions (lib/definitions/store.ts). */
  | { kind: 'actions'; tenantId: string };

const id = z.string().min(1).max(200);
const cacheChange = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('policy'), tenantId: id, action: id, version: z.int() }),
  z.strictObject({ kind: z.literal('contracts'), tenantId: id, action: id }),
  z.strictObject({ kind: z.literal('agent_key'), tenantId: id, keyId: id }),
  z.strictObject({ kind: z.literal('grants'), tenantId: id }),
  z.strictObject({ kind: z.literal('actions'), tenantId: id }),
]);

/** A notification's payload as a change; undefined when it is not one (the reader then forgets everything). */
export function parseCacheChange(payload: string): CacheChange | undefined {
  try {
    const parsed = cacheChange.safeParse(JSON.parse(payload));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Tells every process that keeps the record to forget it. Call it in the transaction that makes
 * the change: PostgreSQL delivers a NOTIFY when that transaction commits, never on a rollback, so
 * no process drops an entry before the change can be read, and none misses it. Identical changes
 * in one transaction arrive once.
 */
export async function announceCacheChange(tx: Database, change: CacheChange): Promise<void> {
  await tx.execute(sql`select pg_notify(${CACHE_CHANNEL}, ${JSON.stringify(change)})`);
}
