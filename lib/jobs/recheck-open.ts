import { and, asc, eq, gt, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Database } from '@/db';
import { type Proposal, proposals, tenants } from '@/db/schema';
import { type LiveRead, readLive } from '@/lib/decisions/live';
import { judgeLive } from '@/lib/decisions/recheck';
import { type SystemsClient, SystemsUnavailableError } from '@/lib/systems/client';

/** A pending proposal nothing triggered is still re-checked this long after its last check. */
export const SWEEP_AFTER_MS = 5 * 60_000;

export type RecheckOptions = { now?: Date; limit?: number; sweepAfterMs?: number };
export type RecheckResult = { checked: number; stale: number; drifted: number; unavailable: number };

const sibling = alias(proposals, 'sibling');
const siblings = sql`${proposals} as ${sql.identifier('sibling')}`;

/**
 * The pending proposals of one tenant worth reading again (index-backed: the tenant's queue, then
 * each one's resource): another proposal on the same resource finished or ended since this one was
 * last checked (an execution's outcome, a rejection, an expiry), or no check for SWEEP_AFTER_MS
 * (changes made outside Countersign). While a sibling is executing its effect may already be in the
 * system of record yet still count as an open claim, so that resource waits for the outcome.
 * `updatedAt` is when a pending proposal was last written, and a re-check writes it.
 * Each pending proposal costs one probe of proposals_moved_on_idx, however many siblings wait on
 * its resource or ended on it before: the newest sibling that moved on is read from the end of its
 * range (a max, which the planner answers from the index whatever it guesses of how many match;
 * an EXISTS it may answer by scanning siblings, betting on finding one soon). The status is a
 * literal so the partial index's predicate is proven under a generic plan too.
 */
function candidates(tenantId: string, now: Date, sweepAfterMs: number) {
  const finishedSince = sql`(select max(${sibling.updatedAt}) from ${siblings} where ${and(
    eq(sibling.tenantId, proposals.tenantId),
    eq(sibling.resourceKey, proposals.resourceKey),
    sql`${sibling.status} <> 'pending_approval'`,
  )}) > ${proposals.updatedAt}`;
  const executing = sql`exists (select 1 from ${siblings} where ${and(
    eq(sibling.tenantId, proposals.tenantId),
    eq(sibling.resourceKey, proposals.resourceKey),
    eq(sibling.status, 'executing'),
  )})`;
  return and(
    eq(proposals.tenantId, tenantId),
    eq(proposals.status, 'pending_approval'),
    gt(proposals.expiresAt, now),
    isNotNull(proposals.resourceKey),
    or(finishedSince, lt(proposals.updatedAt, new Date(now.getTime() - sweepAfterMs))),
    sql`not ${executing}`,
  );
}

/**
 * The query behind a claim (exported so tests can EXPLAIN it): the oldest `limit` candidates, locked, skipping locked
 * ones.
 */
export function candidatesQuery(db: Database, tenantId: string, now: Date, limit: number, sweepAfterMs: number) {
  return (
    db
      .select()
      .from(proposals)
      .where(candidates(tenantId, now, sweepAfterMs))
      // Oldest first: when siblings no longer fit together, the earlier claims are weighed first.
      .orderBy(asc(proposals.createdAt), asc(proposals.id))
      .limit(limit)
      .for('update', { of: proposals, skipLocked: true })
  );
}

/**
 * Claims a batch: FOR UPDATE SKIP LOCKED, and stamps `updatedAt`, so another worker's query no
 * longer finds these rows while this one reads the system of record. Answers them as they were.
 */
async function claim(
  db: Database,
  tenantId: string,
  now: Date,
  limit: number,
  sweepAfterMs: number,
): Promise<Proposal[]> {
  return db.transaction(async (tx) => {
    const rows = await candidatesQuery(tx, tenantId, now, limit, sweepAfterMs);
    if (rows.length > 0) {
      await tx
        .update(proposals)
        .set({ updatedAt: now })
        .where(
          inArray(
            proposals.id,
            rows.map((row) => row.id),
          ),
        );
    }
    return rows;
  });
}

/**
 * Applies one live read to a claimed proposal, with its row locked (lib/decisions/recheck.ts judges
 * it). A row someone else touched meanwhile (a decision, another worker) is left alone.
 */
async function apply(
  db: Database,
  claimed: Proposal,
  stamp: Date,
  live: LiveRead,
): Promise<'stale' | 'drifted' | 'holds' | 'skipped'> {
  return db.transaction(async (tx) => {
    const [proposal] = await tx
      .select()
      .from(proposals)
      .where(eq(proposals.id, claimed.id))
      .for('update', { skipLocked: true })
      .limit(1);
    if (!proposal || proposal.status !== 'pending_approval' || proposal.updatedAt.getTime() !== stamp.getTime())
      return 'skipped';
    return (await judgeLive(tx, proposal, live, stamp)).outcome;
  });
}

/** A read that could not happen changes nothing: the claim's stamp is taken back, so the next run tries again. */
async function release(db: Database, claimed: Proposal, stamp: Date): Promise<void> {
  await db
    .update(proposals)
    .set({ updatedAt: claimed.updatedAt })
    .where(and(eq(proposals.id, claimed.id), eq(proposals.status, 'pending_approval'), eq(proposals.updatedAt, stamp)));
}

/**
 * Re-checks open proposals against live state in the background (docs/design.md §6), so the queue never
 * offers one certain to go stale: per tenant, a batch of pending proposals whose resource changed
 * (see `candidates`) is claimed, the system of record read with no database lock held, then each
 * is ended as stale or marked "changed since proposed" in its own short transaction. A system of
 * record that cannot answer changes nothing. Any number of workers may run it.
 */
export async function recheckOpen(
  db: Database,
  systems: SystemsClient,
  options: RecheckOptions = {},
): Promise<RecheckResult> {
  const now = options.now ?? new Date();
  const result: RecheckResult = { checked: 0, stale: 0, drifted: 0, unavailable: 0 };
  const tenantIds = await db.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.id));
  for (const { id: tenantId } of tenantIds) {
    const claimed = await claim(db, tenantId, now, options.limit ?? 50, options.sweepAfterMs ?? SWEEP_AFTER_MS);
    for (const proposal of claimed) {
      let live: LiveRead;
      try {
        live = await readLive(db, systems, proposal);
      } catch (error) {
        await release(db, proposal, now);
        if (!(error instanceof SystemsUnavailableError)) throw error;
        result.unavailable++;
        continue;
      }
      const outcome = await apply(db, proposal, now, live);
      if (outcome === 'skipped') continue;
      result.checked++;
      if (outcome === 'stale') result.stale++;
      if (outcome === 'drifted') result.drifted++;
    }
  }
  return result;
}
