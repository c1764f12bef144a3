import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, lte, or } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys } from '@/db/schema';
import { cachedRead, cacheTag } from '@/lib/cache/read-cache';

export type AgentPrincipal = {
  keyId: string;
  tenantId: string;
  agentName: string;
  allowedActions: string[];
  grants: Record<string, string[]>;
  onBehalfOfUserId: string | null;
};

const KEY_PREFIX = 'cs_agent_';

/** A new agent key: shown once to its creator, stored only as a hash. */
export function generateAgentKey(): { key: string; hash: string; prefix: string } {
  const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashAgentKey(key), prefix: key.slice(0, KEY_PREFIX.length + 6) };
}

/** Keys carry 256 random bits, so a plain SHA-256 is a sufficient, constant-cost lookup hash. */
export function hashAgentKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  const match = header?.match(/^Bearer ([A-Za-z0-9._~+/=-]{1,512})$/i); // the scheme is case-insensitive (RFC 9110)
  return match?.[1];
}

/** "Last used" is kept to the minute: a busy key writes its row at most once a minute. */
const LAST_USED_STEP_MS = 60_000;

/** What authentication reads of a key; `lastUsedAt` is this process's latest knowledge of it. */
type KeyRow = Pick<
  typeof agentKeys.$inferSelect,
  'id' | 'tenantId' | 'agentName' | 'allowedActions' | 'grants' | 'onBehalfOfUserId' | 'expiresAt' | 'lastUsedAt'
>;

async function activeKey(db: Database, keyHash: string, now: Date): Promise<KeyRow | undefined> {
  const [row] = await db
    .select({
      id: agentKeys.id,
      tenantId: agentKeys.tenantId,
      agentName: agentKeys.agentName,
      allowedActions: agentKeys.allowedActions,
      grants: agentKeys.grants,
      onBehalfOfUserId: agentKeys.onBehalfOfUserId,
      expiresAt: agentKeys.expiresAt,
      lastUsedAt: agentKeys.lastUsedAt,
    })
    .from(agentKeys)
    .where(
      and(
        eq(agentKeys.keyHash, keyHash),
        isNull(agentKeys.revokedAt),
        or(isNull(agentKeys.expiresAt), gt(agentKeys.expiresAt, now)),
      ),
    )
    .limit(1);
  return row;
}

/**
 * The agent behind a request's bearer key, or undefined when missing, unknown, revoked, or
 * replaced by rotation and past its overlap (`expires_at` ≤ now: refused exactly like a revoked key).
 * Records when the key was last used.
 *
 * A found key is kept in the process's read cache (lib/cache/read-cache.ts) by its hash, until a
 * change to it is announced (revoked, rotated: `agent_key` changes); an unknown key is never kept.
 * Its expiry is compared with `now` on every request, kept or not.
 */
export async function authenticateAgent(
  db: Database,
  request: Request,
  now = new Date(),
): Promise<AgentPrincipal | undefined> {
  const key = bearerToken(request);
  if (!key?.startsWith(KEY_PREFIX)) return undefined;
  const keyHash = hashAgentKey(key);
  const row = await cachedRead(
    db,
    JSON.stringify(['agent_key_hash', keyHash]),
    () => activeKey(db, keyHash, now),
    (found) => (found ? [cacheTag.agentKey(found.id)] : null),
  );
  if (!row || (row.expiresAt && row.expiresAt.getTime() <= now.getTime())) return undefined;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_STEP_MS) {
    const stale = new Date(now.getTime() - LAST_USED_STEP_MS);
    // Noted first: requests that arrive while this write is under way do not write it again.
    row.lastUsedAt = now;
    await db
      .update(agentKeys)
      .set({ lastUsedAt: now })
      .where(and(eq(agentKeys.id, row.id), or(isNull(agentKeys.lastUsedAt), lte(agentKeys.lastUsedAt, stale))));
  }
  return {
    keyId: row.id,
    tenantId: row.tenantId,
    agentName: row.agentName,
    allowedActions: row.allowedActions,
    grants: row.grants,
    onBehalfOfUserId: row.onBehalfOfUserId,
  };
}
