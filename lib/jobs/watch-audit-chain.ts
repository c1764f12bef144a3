import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from '@/db';
import { auditChainChecks, auditEvents, auditHeads } from '@/db/schema';
import { CHAIN_START, verifyChain } from '@/lib/audit/verify';
import { chainAllPending } from '@/lib/events/chainer';
import { recordNotice } from '@/lib/events/record';

/** Events re-verified per tenant per run: a long chain is walked over several runs, then again from the start. */
const EVENTS_PER_RUN = 2_000;

/**
 * Re-verifies every tenant's audit chain continuously (docs/design.md §8): each run continues its pass
 * from where the last one stopped and starts a new pass from genesis once it reaches the head, so
 * a row changed behind the database's back (triggers disabled by someone with owner rights) is
 * found even when it was verified before. The first break writes one `audit.chain_broken` notice
 * for admins and stops the watch for that tenant. A tenant's check row is claimed with SKIP LOCKED,
 * so parallel workers never report one break twice.
 */
export type ChainStatus =
  | { state: 'unchecked' }
  | { state: 'verified'; throughSeq: number; at: Date }
  | { state: 'broken'; seq: number; reason: string; at: Date };

/** What the history page shows: "Chain verified through #N at <time>", or where it broke. */
export async function chainStatus(db: Database, tenantId: string): Promise<ChainStatus> {
  const [row] = await db.select().from(auditChainChecks).where(eq(auditChainChecks.tenantId, tenantId));
  if (row?.brokenAtSeq != null)
    return { state: 'broken', seq: row.brokenAtSeq, reason: row.brokenReason ?? 'hash_mismatch', at: row.checkedAt };
  if (row?.verifiedThroughSeq != null && row.verifiedThroughAt)
    return { state: 'verified', throughSeq: row.verifiedThroughSeq, at: row.verifiedThroughAt };
  return { state: 'unchecked' };
}

export async function watchAuditChains(db: Database, now = new Date()): Promise<{ checked: number; broken: string[] }> {
  // A tenant whose only events are pending has a head (and is watched) once they are chained.
  await chainAllPending(db);
  const heads = await db.select({ tenantId: auditHeads.tenantId }).from(auditHeads);
  if (heads.length > 0) {
    await db
      .insert(auditChainChecks)
      .values(
        heads.map(({ tenantId }) => ({
          tenantId,
          verifiedSeq: CHAIN_START.seq,
          verifiedHash: CHAIN_START.hash,
          checkedAt: now,
        })),
      )
      .onConflictDoNothing();
  }
  let checked = 0;
  const broken: string[] = [];
  for (const { tenantId } of heads) {
    await db.transaction(async (tx) => {
      const [check] = await tx
        .select()
        .from(auditChainChecks)
        .where(and(eq(auditChainChecks.tenantId, tenantId), isNull(auditChainChecks.brokenAtSeq)))
        .for('update', { skipLocked: true });
      if (!check) return;
      const rows = await tx
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.tenantId, tenantId), gt(auditEvents.seq, check.verifiedSeq)))
        .orderBy(asc(auditEvents.seq))
        .limit(EVENTS_PER_RUN);
      checked += rows.length;
      const verdict = verifyChain(rows, { seq: check.verifiedSeq, hash: check.verifiedHash });
      if (!verdict.ok) {
        broken.push(tenantId);
        await tx
          .update(auditChainChecks)
          .set({ brokenAtSeq: verdict.seq, brokenReason: verdict.reason, checkedAt: now })
          .where(eq(auditChainChecks.tenantId, tenantId));
        await recordNotice(tx, {
          tenantId,
          topic: 'audit.chain_broken',
          body: { seq: verdict.seq, reason: verdict.reason },
          at: now,
        });
        return;
      }
      // A short read means the head was reached: the pass is complete, and the next run starts a
      // new one from genesis.
      const complete = rows.length < EVENTS_PER_RUN;
      const next = complete ? CHAIN_START : verdict.last;
      await tx
        .update(auditChainChecks)
        .set({
          verifiedSeq: next.seq,
          verifiedHash: next.hash,
          checkedAt: now,
          ...(complete ? { verifiedThroughSeq: verdict.last.seq, verifiedThroughAt: now } : {}),
        })
        .where(eq(auditChainChecks.tenantId, tenantId));
    });
  }
  return { checked, broken };
}
