import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Grant, grants, users } from '@/db/schema';
import { Refusal } from '@/lib/errors/refusal';
import { decodeInstantCursor, encodeInstantCursor, type InstantCursor } from '@/lib/paging/instant-cursor';
import { cursorInstant } from '@/lib/paging/sql';
import { type GrantState, grantState } from './terms';

export const GRANTS_PAGE_SIZE = 50;

/** A grant as the API and the dashboard show it: its terms, its use, and what it is now. */
export type GrantView = {
  id: string;
  proposalId: string;
  grantedBy: { id: string; name: string | null };
  action: string;
  agentKeyId: string;
  agentName: string;
  resourceKey: string | null;
  rule: string;
  policyVersion: number;
  currency: string | null;
  maxCount: number;
  maxTotalMinor: number | null;
  usedCount: number;
  usedTotalMinor: number;
  reason: string;
  createdAt: string;
  expiresAt: string;
  state: GrantState;
  endedAt: string | null;
  endedBy: string | null;
  endNote: string | null;
};

export function grantView(grant: Grant, granterName: string | null, now: Date): GrantView {
  return {
    id: grant.id,
    proposalId: grant.proposalId,
    grantedBy: { id: grant.grantedBy, name: granterName },
    action: grant.action,
    agentKeyId: grant.agentKeyId,
    agentName: grant.agentName,
    resourceKey: grant.resourceKey,
    rule: grant.rule,
    policyVersion: grant.policyVersion,
    currency: grant.currency,
    maxCount: grant.maxCount,
    maxTotalMinor: grant.maxTotalMinor,
    usedCount: grant.usedCount,
    usedTotalMinor: grant.usedTotalMinor,
    reason: grant.reason,
    createdAt: grant.createdAt.toISOString(),
    expiresAt: grant.expiresAt.toISOString(),
    state: grantState(grant, now),
    endedAt: grant.endedAt?.toISOString() ?? null,
    endedBy: grant.endedBy,
    endNote: grant.endNote,
  };
}

export type GrantsQuery = { state: 'all' | 'active'; cursor?: InstantCursor };

const invalidQuery = (message: string) => new Refusal('invalid_query', message);

/** `?state=all|active&cursor=…`: anything else is a 400 in words. */
export function grantsQuery(params: URLSearchParams): GrantsQuery {
  for (const key of new Set(params.keys())) {
    if (key !== 'state' && key !== 'cursor')
      throw invalidQuery(`Unknown query parameter ${JSON.stringify(key)}; use state and cursor.`);
    if (params.getAll(key).length > 1) throw invalidQuery(`${key} is given more than once.`);
  }
  const state = params.get('state') ?? 'all';
  if (state !== 'all' && state !== 'active') throw invalidQuery('state must be all or active.');
  const raw = params.get('cursor');
  if (raw === null) return { state };
  const cursor = decodeInstantCursor(raw);
  if (!cursor) throw invalidQuery('cursor is not one this list returned; start again without it.');
  return { state, cursor };
}

/**
 * The tenant's grants, newest first, a page at a time by (created_at, id) over its index. Every
 * member sees every grant: who may approve what in whose name is nobody's secret in the tenant.
 */
export async function listGrants(
  db: Database,
  tenantId: string,
  query: GrantsQuery,
  now = new Date(),
  limit = GRANTS_PAGE_SIZE,
): Promise<{ grants: GrantView[]; nextCursor: string | null }> {
  const rows = await db
    .select({ grant: grants, name: users.name, at: cursorInstant(grants.createdAt) })
    .from(grants)
    .leftJoin(users, eq(users.id, grants.grantedBy))
    .where(
      and(
        eq(grants.tenantId, tenantId),
        query.state === 'active'
          ? and(isNull(grants.endedAt), gt(grants.expiresAt, now), lt(grants.usedCount, grants.maxCount))
          : undefined,
        query.cursor
          ? sql`(${grants.createdAt}, ${grants.id}) < (${query.cursor.at}::timestamptz, ${query.cursor.id})`
          : undefined,
      ),
    )
    .orderBy(desc(grants.createdAt), desc(grants.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    grants: page.map((row) => grantView(row.grant, row.name, now)),
    nextCursor: rows.length > limit && last ? encodeInstantCursor({ at: last.at, id: last.grant.id }) : null,
  };
}
