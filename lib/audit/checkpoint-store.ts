import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { auditHeads } from '@/db/schema';
import { chainPending } from '@/lib/events/chainer';
import type { CommandKeys } from '@/lib/signing/keys';
import { signCheckpoint } from './checkpoint';
import { signCheckpointNote } from './tlog/note';
import { logOrigin } from './tlog/origin';
import { treeRoot } from './tlog/store';
import { CHAIN_START } from './verify';

/**
 * The tenant's chain head, signed now, every event committed before the call chained first: the
 * answer of `GET /api/v1/audit/checkpoint`. Signed twice over the same head: as a C2SP
 * tlog-checkpoint note (`note`: origin, tree size = `seq`, the RFC 6962 root of the tenant's events;
 * docs/evidence.md, "The log format") and as the JWS of `{tenant, seq, hash, at}` that earlier
 * verifiers read (`checkpoint`).
 */
export async function currentCheckpoint(
  db: Database,
  tenantId: string,
  keys: CommandKeys,
  now = new Date(),
  origin = logOrigin(tenantId),
) {
  await chainPending(db, tenantId);
  const [head] = await db.select().from(auditHeads).where(eq(auditHeads.tenantId, tenantId));
  const claim = {
    tenant: tenantId,
    seq: head?.seq ?? CHAIN_START.seq,
    hash: head?.hash ?? CHAIN_START.hash,
    at: now.toISOString(),
  };
  const signingJwk = keys.jwks.find((jwk) => jwk.kid === keys.signing.kid);
  if (!signingJwk) throw new Error('the signing key is missing from its own key set');
  const rootHash = await treeRoot(db, tenantId, claim.seq);
  const note = await signCheckpointNote({ origin, size: claim.seq, rootHash }, keys.signing, signingJwk);
  return { ...claim, checkpoint: await signCheckpoint(claim, keys.signing), origin, note, keys: keys.jwks };
}
