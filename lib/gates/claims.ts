import { and, count, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals, type ProposalStatus } from '@/db/schema';
import type { ActionModule, OpenClaims } from '@/lib/actions/types';

/** Proposals that still hold a claim on their resource (e.g. on an order's refundable balance). */
export const OPEN_STATUSES = ['pending_approval', 'approved', 'executing'] as const satisfies readonly ProposalStatus[];

/**
 * What the open proposals on a resource claim (optionally not counting one of them): counted and
 * summed by the database over the (tenant, resource, status) index, so the cost does not grow
 * with what they carry.
 */
export async function openClaims(db: Database, tenantId: string, resourceKey: string, action: Pick<ActionModule, 'claimField'>, excludeId?: string): Promise<OpenClaims> {
  const field = action.claimField;
  const total = field ? sql<string>`coalesce(sum((${proposals.payload} -> 'args' ->> ${field})::numeric), 0)::text` : sql<string>`'0'`;
  const [row] = await db
    .select({ count: count(), total })
    .from(proposals)
    .where(
      and(
        eq(proposals.tenantId, tenantId),
        eq(proposals.resourceKey, resourceKey),
        inArray(proposals.status, [...OPEN_STATUSES]),
        excludeId ? ne(proposals.id, excludeId) : undefined,
      ),
    );
  return { count: Number(row?.count ?? 0), total: Number(row?.total ?? 0) };
}
