import { asc, eq, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { auditPending } from '@/db/schema';
import { payloadHash } from '@/lib/payload-hash';
import { auditHashInput } from './append';

/** Pending events linked per transaction: a long backlog is chained in several short ones. */
export const CHAIN_BATCH = 1_000;
/** How many times in a row a batch is read again after a row committed out of `id` order under it. */
const CHAIN_RETRIES = 10;

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
  const [waiting] = await db
    .select({ id: auditPending.id })
    .from(auditPending)
    .where(eq(auditPending.tenantId, tenantId))
    .limit(1);
  if (!waiting) return 0;
  let chained = 0;
  let retries = 0;
  for (;;) {
    // READ COMMITTED whatever the server's default: the batch's reads must see what the chainer
    // that held the head before committed (chainBatch).
    const linked = await db
      .transaction((tx) => chainBatch(tx, tenantId, batch), { isolationLevel: 'read committed' })
      .catch((error: unknown) => {
        // Each retry reads rows that committed meanwhile; a batch that loses the race this often in
        // a row is left to the next call (the worker's sweep, or the next reader) rather than spun on.
        if (isSerializationFailure(error) && ++retries <= CHAIN_RETRIES) return 'again' as const;
        throw error;
      });
    if (linked === 'again') continue;
    retries = 0;
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

/** PostgreSQL's answer when the oldest pending rows or the head changed under the chainer: try the batch again. */
const SERIALIZATION_FAILURE = '40001';

/**
 * One batch, through the owner's two chaining functions (migration 0024): the application reads
 * and hashes; only `audit_chain` writes the chain, from the pending rows' own columns.
 */
async function chainBatch(tx: Database, tenantId: string, limit: number): Promise<number> {
  // Sent together, run in order: the head is created if missing and locked first, so the SELECT's
  // snapshot (READ COMMITTED: taken when it starts) follows the last chainer's commit, and no two
  // chainers ever take the same row or link to the same head.
  const oldest = tx
    .select()
    .from(auditPending)
    .where(eq(auditPending.tenantId, tenantId))
    .orderBy(asc(auditPending.id))
    .limit(limit);
  const lockedHead = tx
    .select({ seq: sql<number>`seq`.mapWith(Number), hash: sql<string>`hash` })
    .from(sql`audit_chain_head(${tenantId})`);
  const [[head], taken] = await Promise.all([lockedHead, oldest]);
  if (!head) throw new Error('audit head missing after audit_chain_head');
  if (taken.length === 0) return 0;

  let hash = head.hash;
  const ids: number[] = [];
  // The fields audit_chain copies from the same pending row (migration 0024), no others.
  const hashes = taken.map((pending, index) => {
    ids.push(pending.id);
    hash = payloadHash(
      auditHashInput({
        tenantId: pending.tenantId,
        seq: head.seq + index + 1,
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
      }),
    );
    return hash;
  });
  await tx.execute(
    sql`select audit_chain(
      ${tenantId}, ${head.seq}, ${head.hash}, ${sql.param(ids)}::bigint[], ${sql.param(hashes)}::text[]
    )`,
  );
  return taken.length;
}

/** A batch that lost a race with a row committing out of `id` order is read and hashed again. */
function isSerializationFailure(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Object; cause = (cause as { cause?: unknown }).cause) {
    if ((cause as { code?: unknown }).code === SERIALIZATION_FAILURE) return true;
  }
  return false;
}
