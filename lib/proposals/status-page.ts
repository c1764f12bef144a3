import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Proposal, type ProposalStatus, proposals, tenants } from '@/db/schema';
import { cursorInstant } from '@/lib/paging/sql';
import { encodeCursor, type ListCursor, type ProposalSort } from './list-cursor';

/**
 * A tenant's proposals in one status: keyset pages, counts and the agents among them (the queue and the list read
 * through these).
 */

export type ProposalFilters = { action?: string; agent?: string; risk?: string };

const filterConditions = (filters: ProposalFilters) => [
  filters.action ? eq(proposals.action, filters.action) : undefined,
  filters.agent ? eq(proposals.agentName, filters.agent) : undefined,
  filters.risk ? eq(proposals.risk, filters.risk) : undefined,
];

/**
 * `where` narrows the list further (the queue's groups, lib/proposals/queue.ts). `scanLimit` bounds
 * the work of a narrowed page: it looks at no more than that many proposals of the status past the
 * cursor, and when those hold fewer than a page, the page is short and its cursor continues after
 * them. `until` is that bound (listProposals finds it).
 */
export type ListOptions = {
  status: ProposalStatus;
  filters?: ProposalFilters;
  sort?: ProposalSort;
  cursor?: ListCursor;
  limit: number;
  where?: SQL;
  scanLimit?: number;
  until?: Pick<ListCursor, 'at' | 'id'>;
};

/** The sort's column and direction, and the keyset condition strictly past (or up to and including) a position. */
function keyset(sort: ProposalSort) {
  const column = sort === 'expiring' ? proposals.expiresAt : proposals.createdAt;
  const descending = sort === 'newest';
  const past = (at: Pick<ListCursor, 'at' | 'id'>) =>
    descending
      ? sql`(${column}, ${proposals.id}) < (${at.at}::timestamptz, ${at.id})`
      : sql`(${column}, ${proposals.id}) > (${at.at}::timestamptz, ${at.id})`;
  const upTo = (at: Pick<ListCursor, 'at' | 'id'>) =>
    descending
      ? sql`(${column}, ${proposals.id}) >= (${at.at}::timestamptz, ${at.id})`
      : sql`(${column}, ${proposals.id}) <= (${at.at}::timestamptz, ${at.id})`;
  const order = descending ? [desc(column), desc(proposals.id)] : [asc(column), asc(proposals.id)];
  return { column, past, upTo, order };
}

function cursorOf(options: ListOptions): ListCursor | undefined {
  if (options.cursor && options.cursor.sort !== (options.sort ?? 'expiring'))
    throw new Error('The cursor belongs to another sort.');
  return options.cursor;
}

/**
 * The keyset query behind listProposals (exported so tests can EXPLAIN it). The sort value is read
 * back as text with microseconds, so a cursor never loses precision against the stored timestamp,
 * and the page boundary is a row comparison the (tenant, status, column, id) index answers.
 */
export function proposalListQuery(db: Database, tenantId: string, options: ListOptions) {
  const { column, past, upTo, order } = keyset(options.sort ?? 'expiring');
  const cursor = cursorOf(options);
  const filters = options.filters ?? {};
  return db
    .select({ proposal: proposals, cursorAt: cursorInstant(column) })
    .from(proposals)
    .where(
      and(
        eq(proposals.tenantId, tenantId),
        eq(proposals.status, options.status),
        ...filterConditions(filters),
        options.where,
        cursor ? past(cursor) : undefined,
        options.until ? upTo(options.until) : undefined,
      ),
    )
    .orderBy(...order)
    .limit(options.limit + 1);
}

/**
 * The query behind a narrowed page's bound (exported so tests can EXPLAIN it): the position of the
 * `scanLimit`-th proposal of the status past the cursor, read from the same index as the page
 * (index only), or none when fewer follow.
 */
export function scanBoundQuery(db: Database, tenantId: string, options: ListOptions & { scanLimit: number }) {
  const { column, past, order } = keyset(options.sort ?? 'expiring');
  const cursor = cursorOf(options);
  return db
    .select({ at: cursorInstant(column), id: proposals.id })
    .from(proposals)
    .where(
      and(eq(proposals.tenantId, tenantId), eq(proposals.status, options.status), cursor ? past(cursor) : undefined),
    )
    .orderBy(...order)
    .offset(options.scanLimit - 1)
    .limit(1);
}

const narrowed = (options: ListOptions) =>
  options.where !== undefined || filterConditions(options.filters ?? {}).some(Boolean);

/**
 * One keyset page of a tenant's proposals in one status, filtered and sorted (soonest to expire first by default).
 * A narrowed page with `scanLimit` looks at no more than that many proposals past the cursor (see ListOptions).
 */
export async function listProposals(
  db: Database,
  tenantId: string,
  options: ListOptions,
): Promise<{ items: Proposal[]; nextCursor: string | null }> {
  const sort = options.sort ?? 'expiring';
  const [bound] =
    options.scanLimit && narrowed(options)
      ? await scanBoundQuery(db, tenantId, { ...options, scanLimit: options.scanLimit })
      : [];
  const rows = await proposalListQuery(db, tenantId, { ...options, until: bound });
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  if (rows.length > options.limit && last)
    return {
      items: page.map((row) => row.proposal),
      nextCursor: encodeCursor({ sort, at: last.cursorAt, id: last.proposal.id }),
    };
  return { items: page.map((row) => row.proposal), nextCursor: bound ? encodeCursor({ sort, ...bound }) : null };
}

/**
 * How many match the filters (`all`), and of those `split` (`matching`) or not (`rest`): exact
 * when the status holds no more than the `limit` read, else lower bounds, each at most `limit`.
 */
export type SplitCount = { all: number; matching: number; rest: number; exact: boolean };

/**
 * The query behind countProposalsSplit (exported so tests can EXPLAIN it): the first `limit` + 1
 * proposals of the status in the queue's default order, read from proposals_queue_idx, and among
 * them how many match the filters, and how many of those match `split` too. The window is named
 * `proposals`, so `split` (written over the table's columns) reads it.
 */
export function countSplitQuery(
  db: Database,
  tenantId: string,
  status: ProposalStatus,
  filters: ProposalFilters,
  split: SQL,
  limit: number,
) {
  const window = db
    .select({
      id: proposals.id,
      agentKeyId: proposals.agentKeyId,
      routing: proposals.routing,
      expiresAt: proposals.expiresAt,
      action: proposals.action,
      agentName: proposals.agentName,
      risk: proposals.risk,
    })
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.status, status)))
    .orderBy(asc(proposals.expiresAt), asc(proposals.id))
    .limit(limit + 1)
    .as('proposals');
  const matches = and(...filterConditions(filters)) ?? sql`true`;
  return db
    .select({
      scanned: sql<number>`count(*)::int`,
      all: sql<number>`(count(*) filter (where ${matches}))::int`,
      matching: sql<number>`(count(*) filter (where ${matches} and ${split}))::int`,
    })
    .from(window);
}

/**
 * How many proposals in one status match the filters, and how many of those also match `split`,
 * reading no more than `limit` + 1 of them (one index range): a busy queue's counts cost the same
 * at any size, and say "at least" past `limit`.
 */
export async function countProposalsSplit(
  db: Database,
  tenantId: string,
  status: ProposalStatus,
  filters: ProposalFilters,
  split: SQL,
  limit: number,
): Promise<SplitCount> {
  const [row] = await countSplitQuery(db, tenantId, status, filters, split, limit);
  const all = Number(row?.all ?? 0);
  const matching = Number(row?.matching ?? 0);
  const exact = Number(row?.scanned ?? 0) <= limit;
  const cap = (n: number) => (exact ? n : Math.min(n, limit));
  return { all: cap(all), matching: cap(matching), rest: cap(all - matching), exact };
}

/**
 * The query behind agentsWithPending (exported so tests can EXPLAIN it): a loose scan of
 * proposals_pending_agent_idx, one probe per distinct agent instead of a read of every pending
 * proposal. The literal status matches the partial index's predicate under any plan.
 */
export function pendingAgentsQuery(tenantId: string) {
  const next = (after: SQL) =>
    sql`(select min(p.agent_name) from proposals p
      where p.tenant_id = ${tenantId} and p.status = 'pending_approval' and ${after})`;
  return sql`with recursive agents (name) as (
      select ${next(sql`true`)}
      union all
      select ${next(sql`p.agent_name > agents.name`)} from agents where agents.name is not null
    )
    select name from agents where name is not null`;
}

/** The agents with pending proposals (the agent filter's choices), in name order. */
export async function agentsWithPending(db: Database, tenantId: string): Promise<string[]> {
  const [row] = await db
    .select({ names: sql<string[]>`array(${pendingAgentsQuery(tenantId)})` })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return row?.names ?? [];
}
