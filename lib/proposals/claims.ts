import { and, eq, inArray, ne } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals, type ProposalStatus } from '@/db/schema';
import type { OpenProposal } from '@/lib/actions/types';

/** Proposals that still hold a claim on their resource (e.g. on an order's refundable balance). */
export const OPEN_STATUSES = ['pending_approval', 'approved', 'executing'] as const satisfies readonly ProposalStatus[];

/** The arguments of the open proposals on a resource (optionally not counting one of them). */
export async function openClaims(db: Database, tenantId: string, resourceKey: string, excludeId?: string): Promise<OpenProposal[]> {
  const rows = await db
    .select({ payload: proposals.payload })
    .from(proposals)
    .where(
      and(
        eq(proposals.tenantId, tenantId),
        eq(proposals.resourceKey, resourceKey),
        inArray(proposals.status, [...OPEN_STATUSES]),
        excludeId ? ne(proposals.id, excludeId) : undefined,
      ),
    );
  return rows.map((row) => ({ args: row.payload.args }));
}
