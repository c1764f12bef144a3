import { and, eq, gte, inArray, ne, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { type ProposalStatus, proposals } from '@/db/schema';

/**
 * The proposals whose amounts an aggregate bound adds up: open ones (they may still run) and those
 * that ran or may have run. `outcome_unknown` counts: until reconciliation says otherwise the effect
 * may have landed, and guessing low would let a split slip under the bound.
 */
export const AGGREGATED_STATUSES = [
  'pending_approval',
  'approved',
  'executing',
  'succeeded',
  'outcome_unknown',
] as const satisfies readonly ProposalStatus[];

export type AggregateNeed = { field: string; windowHours: number };
export type PriorTotal = { count: number; sum: number };
/** Keyed by `aggregateKey(need)`. */
export type PriorTotals = ReadonlyMap<string, PriorTotal>;

export const aggregateKey = (need: AggregateNeed) => `${need.windowHours}h/${need.field}`;

export type AggregateScope = {
  tenantId: string;
  action: string;
  resourceKey: string;
  now: Date;
  /** The parent of a revision: the revision replaces it, so its amount must not count twice. */
  excludeId?: string;
};

/**
 * Count and sum of `field` over the earlier counted proposals in scope, summed by the database.
 * Call it inside the intake transaction after the per-resource lock, so a concurrent split of the
 * same request cannot each see a small sum. A field that is not a JSON number adds nothing (the
 * proposal's own value would not match a bound either).
 */
export async function priorTotals(db: Database, scope: AggregateScope, needs: AggregateNeed[]): Promise<PriorTotals> {
  const totals = new Map<string, PriorTotal>();
  for (const need of needs) {
    const key = aggregateKey(need);
    if (totals.has(key)) continue;
    const value = sql`(${proposals.payload} -> 'args' -> ${need.field}::text)`;
    const isNumber = sql`jsonb_typeof(${value}) = 'number'`;
    const [row] = await db
      .select({
        count: sql<number>`(count(*) filter (where ${isNumber}))::int`,
        sum: sql<string>`(coalesce(sum((${value})::numeric) filter (where ${isNumber}), 0))::text`,
      })
      .from(proposals)
      .where(
        and(
          eq(proposals.tenantId, scope.tenantId),
          eq(proposals.action, scope.action),
          eq(proposals.resourceKey, scope.resourceKey),
          inArray(proposals.status, [...AGGREGATED_STATUSES]),
          gte(proposals.createdAt, new Date(scope.now.getTime() - need.windowHours * 3_600_000)),
          scope.excludeId ? ne(proposals.id, scope.excludeId) : undefined,
        ),
      );
    totals.set(key, { count: Number(row?.count ?? 0), sum: Number(row?.sum ?? 0) });
  }
  return totals;
}
