import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { auditEvents, auditHeads, auditPending } from '@/db/schema';
import { payloadHash } from '@/lib/payload-hash';
import { auditHashInput, GENESIS_HASH } from './append';

/** Pending events linked per transaction: a long backlog is chained in several short ones. */
export const CHAIN_BATCH = 1_000;

/**
 * Links a tenant's pending events (audit_pending) into its hash chain, oldest `id` first, and
 * answers how many. Cheap when nothing is pending (one indexed statement), so every reader that
 * must see the whole trail (verifier, checkpoint, bundle, export, History, a proposal's timeline)
 * calls it first. Safe to run anywhere, any number of times at once (docs/evidence.md, "How
 * events are chained").
 *
 * Why the chain keeps the order that matters: one proposal's state changes are serialized by its
 * row lock, so a later change writes its pending row after the earlier change committed, and draws
 * a larger `id` (the sequence has CACHE 1, so its values grow across sessions). A chainer whose
 * snapshot holds the later row holds the earlier one too (committed before it), unless that one is
 * already chained. So a proposal's events (and any event written after another committed) are
 * chained in the order they happened. Rows of unrelated changes may commit out of `id` order: a row
 * that commits after a larger `id` was chained is chained in a later batch, with a higher seq. The
 * chain's order is the chainer's order, and the hash makes that order permanent.
 */
export async function chainPending(db: Database, tenantId: string, batch = CHAIN_BATCH): Promise<number> {
  const [waiting] = await db.select({ id: auditPending.id }).from(auditPending).where(eq(auditPending.tenantId, tenantId)).limit(1);
  if (!waiting) return 0;
  let chained = 0;
  for (;;) {
    // READ COMMITTED whatever the server's default: the batch's DELETE must see what the chainer
    // that held the head before committed (chainBatch).
    const linked = await db.transaction((tx) => chainBatch(tx, tenantId, batch), { isolationLevel: 'read committed' });
    chained += linked;
    if (linked < batch) return chained;
  }
}

/** Every tenant's pending events, chained: the worker's sweep, and readers across tenants. */
export async function chainAllPending(db: Database): Promise<number> {
  let chained = 0;
  for (const tenantId of await tenantsWithPending(db)) chained += await chainPending(db, tenantId);
  return chained;
}

export async function tenantsWithPending(db: Database): Promise<string[]> {
  const rows = await db.selectDistinct({ tenantId: auditPending.tenantId }).from(auditPending);
  return rows.map((row) => row.tenantId);
}

async function chainBatch(tx: Database, tenantId: string, limit: number): Promise<number> {
  // Sent together, run in order: the head is created if missing and locked first, so the DELETE's
  // snapshot (READ COMMITTED: taken when it starts) follows the last chainer's commit, and no two
  // chainers ever take the same row or link to the same head.
  const oldest = tx.select({ id: auditPending.id }).from(auditPending).where(eq(auditPending.tenantId, tenantId)).orderBy(asc(auditPending.id)).limit(limit);
  const [[head], , taken] = await Promise.all([
    tx
      .insert(auditHeads)
      .values({ tenantId, seq: 0, hash: GENESIS_HASH })
      .onConflictDoUpdate({ target: auditHeads.tenantId, set: { seq: sql`${auditHeads.seq}` } })
      .returning(),
    tx.execute(sql`select set_config('countersign.chaining', 'on', true)`),
    tx.delete(auditPending).where(and(eq(auditPending.tenantId, tenantId), inArray(auditPending.id, oldest))).returning(),
  ]);
  if (!head) throw new Error('audit head missing after upsert');
  if (taken.length === 0) return 0;

  let { seq, hash } = head;
  const rows = taken
    .sort((a, b) => a.id - b.id)
    .map((pending) => {
      const row = {
        tenantId: pending.tenantId,
        seq: seq + 1,
        type: pending.type,
        actorType: pending.actorType,
        actorId: pending.actorId,
        actorName: pending.actorName,
        proposalId: pending.proposalId,
        payloadHash: pending.payloadHash,
        reasonCode: pending.reasonCode,
        contractVersion: pending.contractVersion,
        data: pending.data,
        occurredAt: pending.occurredAt,
        prevHash: hash,
      };
      seq = row.seq;
      hash = payloadHash(auditHashInput(row));
      return { ...row, hash };
    });
  const insertEvents = tx.insert(auditEvents).values(rows);
  const moveHead = tx.update(auditHeads).set({ seq, hash }).where(eq(auditHeads.tenantId, tenantId));
  await tx.execute(sql`with appended as (${insertEvents.getSQL()}) ${moveHead.getSQL()}`);
  return taken.length;
}
