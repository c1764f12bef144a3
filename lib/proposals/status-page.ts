import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals, type Proposal, type ProposalStatus } from '@/db/schema';
import { cursorInstant } from '@/lib/paging/sql';
import { encodeCursor, type ListCursor, type ProposalSort } from './list-cursor';

/** A tenant's proposals in one status: keyset pages, counts and the agents among them (the queue and the list read through these). */

export type ProposalFilters = { action?: string; agent?: string; risk?: string };

const filterConditions = (filters: ProposalFilters) => [
  filters.action ? eq(proposals.action, filters.action) : undefined,
  filters.agent ? eq(proposals.agentName, filters.agent) : undefined,
  filters.risk ? eq(proposals.risk, filters.risk) : undefined,
];

/** `where` narrows the list further (the queue's groups, lib/proposals/queue.ts). */
export type ListOptions = { status: ProposalStatus; filters?: ProposalFilters; sort?: ProposalSort; cursor?: ListCursor; limit: number; where?: SQL };

/**
 * The keyset query behind listProposals (exported so tests can EXPLAIN it). The sort value is read
 * back as text with microseconds, so a cursor never loses precision against the stored timestamp,
 * and the page boundary is a row comparison the (tenant, status, column, id) index answers.
 */
export function proposalListQuery(db: Database, tenantId: string, options: ListOptions) {
  const sort = options.sort ?? 'expiring';
  const column = sort === 'expiring' ? proposals.expiresAt : proposals.createdAt;
  const descending = sort === 'newest';
  const cursorAt = cursorInstant(column);
  let after: SQL | undefined;
  if (options.cursor) {
    if (options.cursor.sort !== sort) throw new Error('The cursor belongs to another sort.');
    after = descending
      ? sql`(${column}, ${proposals.id}) < (${options.cursor.at}::timestamptz, ${options.cursor.id})`
      : sql`(${column}, ${proposals.id}) > (${options.cursor.at}::timestamptz, ${options.cursor.id})`;
  }
  const filters = options.filters ?? {};
  return db
    .select({ proposal: proposals, cursorAt })
    .from(proposals)
    .where(
      and(
        eq(proposals.tenantId, tenantId),
        eq(proposals.status, options.status),
        ...filterConditions(filters),
        options.where,
        after,
      ),
    )
    .orderBy(...(descending ? [desc(column), desc(proposals.id)] : [asc(column), asc(proposals.id)]))
    .limit(options.limit + 1);
}

/** One keyset page of a tenant's proposals in one status, filtered and sorted (soonest to expire first by default). */
export async function listProposals(
  db: Database,
  tenantId: string,
  options: ListOptions,
): Promise<{ items: Proposal[]; nextCursor: string | null }> {
  const rows = await proposalListQuery(db, tenantId, options);
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => row.proposal),
    nextCursor: rows.length > options.limit && last ? encodeCursor({ sort: options.sort ?? 'expiring', at: last.cursorAt, id: last.proposal.id }) : null,
  };
}

/** How many proposals in one status match the filters (the tab title's count). */
export async function countProposals(db: Database, tenantId: string, status: ProposalStatus, filters: ProposalFilters = {}): Promise<number> {
  return (await countProposalsSplit(db, tenantId, status, filters, sql`true`)).all;
}

/** How many proposals in one status match the filters, and how many of those also match `split`: one scan. */
export async function countProposalsSplit(db: Database, tenantId: string, status: ProposalStatus, filters: ProposalFilters, split: SQL): Promise<{ all: number; matching: number }> {
  const [row] = await db
    .select({ all: sql<number>`count(*)::int`, matching: sql<number>`(count(*) filter (where ${split}))::int` })
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.status, status), ...filterConditions(filters)));
  return { all: Number(row?.all ?? 0), matching: Number(row?.matching ?? 0) };
}

/** The agents with proposals in one status (the agent filter's choices). */
export async function agentsWithProposals(db: Database, tenantId: string, status: ProposalStatus): Promise<string[]> {
  const rows = await db
    .selectDistinct({ agent: proposals.agentName })
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.status, status)))
    .orderBy(asc(proposals.agentName));
  return rows.map((row) => row.agent);
}
