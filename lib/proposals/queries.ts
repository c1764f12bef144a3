import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Database } from '@/db';
import { decisions, proposals, users, type Proposal, type ProposalStatus, type Role } from '@/db/schema';
import { roleAtLeast, ROLES } from '@/lib/auth/roles';
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

const filterConditions = (filters: ProposalFilters) => [
  filters.action ? eq(proposals.action, filters.action) : undefined,
  filters.agent ? eq(proposals.agentName, filters.agent) : undefined,
  filters.risk ? eq(proposals.risk, filters.risk) : undefined,
];

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

/** Who looks at the queue: a member of its tenant, with their role there. */
export type QueueViewer = { userId: string; role: Role };

/** The most revisions a chain is walked through in SQL (a chain never loops; this only bounds bad data). */
export const MAX_REVISION_DEPTH = 64;

/**
 * The viewer's relation to a proposal row of the outer query, as SQL over `proposals` (docs/design.md §6,
 * the rules decide() enforces under lock; lib/decisions/initiators.ts is their source):
 * - `decided`: they have a decision on it (an approval: a rejection ends it);
 * - `onBehalf`: its agent key acts for them;
 * - `edited`: they edited it or any revision before it — `initiated_by_user_id` of this row and of
 *   every ancestor along `parent_id` (revise.ts sets both), walked with a recursive query, so the
 *   list agrees with initiatorsOf() at any depth (bounded by MAX_REVISION_DEPTH);
 * - `mayDecide`: their role reaches the routing rule's (viewers never);
 * - `needsYou`: all of that says it is theirs to decide now, and it is not past its expiry.
 * Each subquery is answered by an index: decisions (proposal_id, user_id), the agent key and each
 * parent by primary key.
 */
export function viewerRelation(viewer: QueueViewer, asOf: Date) {
  // Written with explicit names: drizzle leaves columns unqualified in a one-table select list,
  // where "id" inside a subquery would name the subquery's own table. `proposals` is the outer row.
  const user = viewer.userId;
  const decided = sql<boolean>`exists (select 1 from decisions d where d.proposal_id = proposals.id and d.user_id = ${user})`;
  const onBehalf = sql<boolean>`exists (select 1 from agent_keys k where k.id = proposals.agent_key_id and k.on_behalf_of_user_id = ${user})`;
  const edited = sql<boolean>`(proposals.initiated_by_user_id is not distinct from ${user} or (proposals.parent_id is not null and exists (
    with recursive chain (parent_id, editor, depth) as (
      select a.parent_id, a.initiated_by_user_id, 1 from proposals a where a.tenant_id = proposals.tenant_id and a.id = proposals.parent_id
      union all
      select a.parent_id, a.initiated_by_user_id, chain.depth + 1 from proposals a join chain on a.id = chain.parent_id
      where a.tenant_id = proposals.tenant_id and chain.depth < ${MAX_REVISION_DEPTH}
    )
    select 1 from chain where chain.editor = ${user})))`;
  const roles = ROLES.filter((role) => role !== 'viewer' && roleAtLeast(viewer.role, role));
  const mayDecide = roles.length > 0 ? sql<boolean>`coalesce(proposals.routing->>'role' in (${sql.join(roles.map((role) => sql`${role}`), sql`, `)}), false)` : sql<boolean>`false`;
  const needsYou = sql<boolean>`(proposals.expires_at > ${asOf.toISOString()}::timestamptz and ${mayDecide} and not ${decided} and not ${onBehalf} and not ${edited})`;
  return { decided, onBehalf, edited, mayDecide, needsYou };
}

/** Per proposal of a page: approvals so far, and the viewer's relation to it. */
export type ViewerFacts = { approvals: number; decided: boolean; onBehalf: boolean; edited: boolean };

export async function viewerFactsFor(db: Database, tenantId: string, ids: string[], viewer: QueueViewer, asOf: Date): Promise<Map<string, ViewerFacts>> {
  if (ids.length === 0) return new Map();
  const relation = viewerRelation(viewer, asOf);
  const rows = await db
    .select({
      id: proposals.id,
      approvals: sql<number>`(select count(*)::int from decisions d where d.proposal_id = proposals.id and d.decision = 'approve')`,
      decided: relation.decided,
      onBehalf: relation.onBehalf,
      edited: relation.edited,
    })
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), inArray(proposals.id, ids)));
  return new Map(rows.map((row) => [row.id, { approvals: Number(row.approvals), decided: Boolean(row.decided), onBehalf: Boolean(row.onBehalf), edited: Boolean(row.edited) }]));
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
