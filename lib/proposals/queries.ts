import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Database } from '@/db';
import { decisions, proposals, users, type Proposal, type ProposalStatus } from '@/db/schema';
import { isCursorInstant, isRowId } from '@/lib/paging/fields';
import { cursorInstant } from '@/lib/paging/sql';

async function firstProposal(db: Database, where: SQL | undefined): Promise<Proposal | undefined> {
  const [row] = await db.select().from(proposals).where(where).limit(1);
  return row;
}

export async function getProposal(db: Database, tenantId: string, id: string): Promise<Proposal | undefined> {
  return firstProposal(db, and(eq(proposals.tenantId, tenantId), eq(proposals.id, id)));
}

/** Only for finding which tenant to check membership in; never return it without that check. */
export async function tenantOfProposal(db: Database, id: string): Promise<string | undefined> {
  const [row] = await db.select({ tenantId: proposals.tenantId }).from(proposals).where(eq(proposals.id, id)).limit(1);
  return row?.tenantId;
}

/** The proposal an agent key made under a requestId (its idempotency key), if any. */
export async function proposalByRequestId(db: Database, agentKeyId: string, requestId: string): Promise<Proposal | undefined> {
  return firstProposal(db, and(eq(proposals.agentKeyId, agentKeyId), eq(proposals.requestId, requestId)));
}

export type DecisionRow = { decision: 'approve' | 'reject'; userId: string; userName: string; reason: string | null; createdAt: Date };

export async function decisionsFor(db: Database, tenantId: string, proposalId: string): Promise<DecisionRow[]> {
  return db
    .select({
      decision: decisions.decision,
      userId: decisions.userId,
      userName: users.name,
      reason: decisions.reason,
      createdAt: decisions.createdAt,
    })
    .from(decisions)
    .innerJoin(users, eq(users.id, decisions.userId))
    .where(and(eq(decisions.tenantId, tenantId), eq(decisions.proposalId, proposalId)))
    .orderBy(asc(decisions.createdAt));
}

/** How a list of proposals is ordered; each has a matching index (tenant, status, column, id). */
export const PROPOSAL_SORTS = ['expiring', 'newest', 'oldest'] as const;
export type ProposalSort = (typeof PROPOSAL_SORTS)[number];

export type ProposalFilters = { action?: string; agent?: string; risk?: string };

/** Where the previous page ended: its sort, the last row's sort value (microseconds, UTC) and id. */
export type ListCursor = { sort: ProposalSort; at: string; id: string };

const CURSOR_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.sort, cursor.at, cursor.id])).toString('base64url');
}

/** The cursor, or undefined when it is not one encodeCursor made. */
export function decodeCursor(raw: string | null | undefined): ListCursor | undefined {
  if (!raw) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 3) return undefined;
    const [sort, at, id] = value as unknown[];
    if (!PROPOSAL_SORTS.includes(sort as ProposalSort) || typeof at !== 'string' || !CURSOR_AT.test(at) || !isCursorInstant(at) || typeof id !== 'string' || !isRowId(id)) {
      return undefined;
    }
    return { sort: sort as ProposalSort, at, id };
  } catch {
    return undefined;
  }
}

export type ListOptions = { status: ProposalStatus; filters?: ProposalFilters; sort?: ProposalSort; cursor?: ListCursor; limit: number };

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
        filters.action ? eq(proposals.action, filters.action) : undefined,
        filters.agent ? eq(proposals.agentName, filters.agent) : undefined,
        filters.risk ? eq(proposals.risk, filters.risk) : undefined,
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
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(proposals)
    .where(
      and(
        eq(proposals.tenantId, tenantId),
        eq(proposals.status, status),
        filters.action ? eq(proposals.action, filters.action) : undefined,
        filters.agent ? eq(proposals.agentName, filters.agent) : undefined,
        filters.risk ? eq(proposals.risk, filters.risk) : undefined,
      ),
    );
  return Number(row?.n ?? 0);
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
