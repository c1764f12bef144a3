import type { Database } from '@/db';
import { resourceClaims } from '@/db/schema';
import type { OpenClaims } from '@/lib/actions/types';
import { allOpenClaimsFromScratch, lockClaims, openClaimsFromScratch, setClaims } from '@/lib/gates/claims';

/** One claims row that differed from the sum from scratch, and was set to it. */
export type ClaimsRepair = { tenantId: string; resourceKey: string; held: OpenClaims; actual: OpenClaims };

const NONE: OpenClaims = { count: 0, total: 0 };
const same = (a: OpenClaims, b: OpenClaims) => a.count === b.count && a.total === b.total;
const keyOf = (tenantId: string, resourceKey: string) => JSON.stringify([tenantId, resourceKey]);

/** A log line for one repair: ids and the two values, never a payload. */
export function describeRepair(repair: ClaimsRepair): string {
  return `claims row repaired ${JSON.stringify(repair)}`;
}

/** The claims rows that differ from the sum from scratch over their resource's open proposals (no lock). */
export async function claimsDrift(db: Database): Promise<ClaimsRepair[]> {
  const [rows, sums] = await Promise.all([
    db
      .select({
        tenantId: resourceClaims.tenantId,
        resourceKey: resourceClaims.resourceKey,
        count: resourceClaims.openCount,
        total: resourceClaims.openTotal,
      })
      .from(resourceClaims),
    allOpenClaimsFromScratch(db),
  ]);
  const actual = new Map(sums.map((sum) => [keyOf(sum.tenantId, sum.resourceKey), sum.claims]));
  return rows
    .map(({ tenantId, resourceKey, count, total }) => ({
      tenantId,
      resourceKey,
      held: { count, total: Number(total) },
      actual: actual.get(keyOf(tenantId, resourceKey)) ?? NONE,
    }))
    .filter((row) => !same(row.held, row.actual));
}

/**
 * Finds claims rows that drifted from the sum over their open proposals (a status written outside
 * lib/gates/claims.ts, a bug) and sets each back, answering what it fixed. Each suspect row is
 * locked and summed again before it is set: a change waiting on the row applies its delta after
 * the repair, to the exact sum. A resource with no row needs none (its row starts from scratch).
 */
export async function reconcileClaims(db: Database): Promise<ClaimsRepair[]> {
  const suspects = await claimsDrift(db);
  const repairs: ClaimsRepair[] = [];
  for (const { tenantId, resourceKey } of suspects) {
    const repair = await db.transaction(async (tx) => {
      const held = await lockClaims(tx, tenantId, resourceKey);
      const sum = await openClaimsFromScratch(tx, tenantId, resourceKey);
      if (same(held, sum)) return undefined;
      await setClaims(tx, tenantId, resourceKey, sum);
      return { tenantId, resourceKey, held, actual: sum };
    });
    if (repair) repairs.push(repair);
  }
  return repairs;
}
