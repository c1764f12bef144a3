import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { auditHeads } from '@/db/schema';
import type { CommandKeys } from '@/lib/commands/keys';
import { chainPending } from '@/lib/events/chainer';
import { signCheckpoint } from './checkpoint';
import { CHAIN_START } from './verify';

/** The tenant's chain head, signed now, every event committed before the call chained first: the answer of `GET /api/v1/audit/checkpoint`. */
export async function currentCheckpoint(db: Database, tenantId: string, keys: CommandKeys, now = new Date()) {
  await chainPending(db, tenantId);
  const [head] = await db.select().from(auditHeads).where(eq(auditHeads.tenantId, tenantId));
  const claim = { tenant: tenantId, seq: head?.seq ?? CHAIN_START.seq, hash: head?.hash ?? CHAIN_START.hash, at: now.toISOString() };
  return { ...claim, checkpoint: await signCheckpoint(claim, keys.signing), keys: keys.jwks };
}
