import 'server-only';
import { and, desc, eq, ne } from 'drizzle-orm';
import type { Database } from '@/db';
import { type ProposalStatus, proposals } from '@/db/schema';
import { actionFinder } from '@/lib/definitions/catalog';
import { wordingOf } from './wording';

/** How many other proposals on the same resource the proposal page lists. */
export const RESOURCE_HISTORY_SIZE = 10;

/** Another proposal on the same resource, as the proposal page lists it. */
export type ResourceProposal = { id: string; status: ProposalStatus; summary: string; agent: string; createdAt: Date };

/** The resource's name for people: `order:ord_1842` → `ord_1842`. */
export function resourceLabel(resourceKey: string): string {
  const colon = resourceKey.indexOf(':');
  return colon >= 0 ? resourceKey.slice(colon + 1) : resourceKey;
}

/**
 * The query behind resourceHistory (exported so tests can EXPLAIN it): newest first from proposals_resource_recent_idx.
 */
export function resourceHistoryQuery(
  db: Database,
  tenantId: string,
  resourceKey: string,
  excludeId: string,
  limit = RESOURCE_HISTORY_SIZE,
) {
  return db
    .select({
      id: proposals.id,
      status: proposals.status,
      action: proposals.action,
      payload: proposals.payload,
      facts: proposals.facts,
      agent: proposals.agentName,
      createdAt: proposals.createdAt,
    })
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.resourceKey, resourceKey), ne(proposals.id, excludeId)))
    .orderBy(desc(proposals.createdAt), desc(proposals.id))
    .limit(limit);
}

/**
 * The other recent proposals on a resource in the same tenant, any status, newest first: what an
 * approver wants to know before a second refund on the same order.
 */
export async function resourceHistory(
  db: Database,
  tenantId: string,
  resourceKey: string,
  excludeId: string,
): Promise<ResourceProposal[]> {
  const rows = await resourceHistoryQuery(db, tenantId, resourceKey, excludeId);
  const actionOf = await actionFinder(
    db,
    tenantId,
    rows.map((row) => row.action),
  );
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    summary: wordingOf(row, actionOf(row.action)).summary,
    agent: row.agent,
    createdAt: row.createdAt,
  }));
}
