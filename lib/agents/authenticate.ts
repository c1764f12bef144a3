import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, lte, or } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys } from '@/db/schema';

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

/**
 * The agent behind a request's bearer key, or undefined when missing, unknown, revoked, or
 * replaced by rotation and past its overlap (`expires_at` ≤ now: refused exactly like a revoked key).
 * Records when the key was last used.
 */
export async function authenticateAgent(db: Database, request: Request, now = new Date()): Promise<AgentPrincipal | undefined> {
  const key = bearerToken(request);
  if (!key?.startsWith(KEY_PREFIX)) return undefined;
  const [row] = await db
    .select()
    .from(agentKeys)
    .where(and(eq(agentKeys.keyHash, hashAgentKey(key)), isNull(agentKeys.revokedAt), or(isNull(agentKeys.expiresAt), gt(agentKeys.expiresAt, now))))
    .limit(1);
  if (!row) return undefined;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_STEP_MS) {
    const stale = new Date(now.getTime() - LAST_USED_STEP_MS);
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
