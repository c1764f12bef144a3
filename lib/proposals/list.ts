import 'server-only';
import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '@/db';
import { decisions, memberships, type ProposalStatus, proposalStatusEnum, proposals, users } from '@/db/schema';
import { allActions, findAction } from '@/lib/actions/registry';
import { parseSearch } from '@/lib/input/search';
import { cursorInstant } from '@/lib/paging/sql';
import { decodeCursor, encodeCursor, type ListCursor } from './list-cursor';
import { standingApprovals } from './words';

/**
 * The Proposals list: every proposal of a tenant, whatever its status, newest first, filtered by
 * status and found by what it acts on (an order id, a SKU), its agent or who decided it. Each
 * filter is answered by an index ending in (created_at, id), so a page is a keyset range with no
 * sort: proposals_recent_idx, proposals_queue_created_idx, proposals_resource_recent_idx,
 * proposals_agent_recent_idx (lib/proposals/list.postgres.int.test.ts EXPLAINs them).
 */

export const LIST_PAGE_SIZE = 25;
export const LIST_STATUSES = proposalStatusEnum.enumValues;

/** What the URL may say: `?status=stale&q=ord_1843`; a missing status means every status. */
export type ProposalListView = { status?: ProposalStatus; q?: string };

/** What `q` was found to name; `none` when it names nothing of the tenant's. */
export type SearchTarget =
  | { kind: 'resource'; keys: string[] }
  | { kind: 'agent'; name: string }
  | { kind: 'decider'; userIds: string[]; names: string[] }
  | { kind: 'none'; term: string };

export type ProposalListItem = {
  id: string;
  status: ProposalStatus;
  /**
   * Why it ended where it did, in words, for the statuses that need one (stale, expired, rejected, failed, cancelled).
   */
  reason: string | null;
  summary: string;
  action: string;
  agent: string;
  /**
   * Who decided, oldest first; `withdrawn` marks an approval that stopped counting (its approver's role dropped or they
   * left).
   */
  deciders: { name: string; decision: 'approve' | 'reject'; withdrawn: boolean }[];
  /** The approvals that stand (withdrawn ones never count, as on the proposal page) and how many its rule needs. */
  approvals: { standing: number; required: number };
  createdAt: string;
};

export type ProposalListPage = { items: ProposalListItem[]; nextCursor: string | null; target?: SearchTarget };

const describe = (input: unknown) => (typeof input === 'string' ? `"${input.slice(0, 40)}"` : 'nothing');

const listParamsSchema = z.strictObject({
  status: z
    .enum(['all', ...LIST_STATUSES], {
      error: (issue) => `status must be all or one of ${LIST_STATUSES.join(', ')}; got ${describe(issue.input)}.`,
    })
    .optional(),
  q: z.string().max(200, 'q must be at most 200 characters.').optional(),
  cursor: z.string().max(500).optional(),
});

export type ParsedListParams =
  | { ok: true; view: ProposalListView; cursor?: ListCursor }
  | { ok: false; messages: string[] };

/** Validates `?status=&q=&cursor=`: an unknown parameter, a repeated one or a bad value is refused in words. */
export function parseListParams(search: URLSearchParams): ParsedListParams {
  const parsed = parseSearch(listParamsSchema, search);
  if (!parsed.ok) return parsed;
  const { status, q, cursor: raw } = parsed.data;
  const view: ProposalListView = {
    ...(status && status !== 'all' ? { status } : {}),
    ...(q?.trim() ? { q: q.trim() } : {}),
  };
  if (raw === undefined) return { ok: true, view };
  const cursor = decodeCursor(raw);
  if (!cursor || cursor.sort !== 'newest')
    return { ok: false, messages: ['cursor is not one this list returned; start again without it.'] };
  return { ok: true, view, cursor };
}

/**
 * For the page: each valid parameter is kept, anything else falls back to its default (a bad cursor to the first page).
 */
export function listViewFromSearch(search: Record<string, string | string[] | undefined>): {
  view: ProposalListView;
  cursor?: ListCursor;
} {
  let result: { view: ProposalListView; cursor?: ListCursor } = { view: {} };
  for (const key of ['status', 'q', 'cursor'] as const) {
    const value = search[key];
    if (typeof value !== 'string') continue;
    const parsed = parseListParams(new URLSearchParams({ [key]: value }));
    if (parsed.ok) result = { view: { ...result.view, ...parsed.view }, cursor: parsed.cursor ?? result.cursor };
  }
  return result;
}

/** The URL search of a view, without paging. */
export function listSearch(view: ProposalListView, extra: Record<string, string> = {}): string {
  const search = new URLSearchParams({
    ...(view.status ? { status: view.status } : {}),
    ...(view.q ? { q: view.q } : {}),
    ...extra,
  });
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * What a search term names in the tenant, first match wins: a resource (`ord_1843`, `filter-blue`
 * or a full key `order:ord_1843`, each action saying which key a term would be), an agent, then
 * a member who decided (name or email, case-insensitive). All exact, so each is one index lookup.
 */
export async function resolveSearch(db: Database, tenantId: string, term: string): Promise<SearchTarget> {
  const candidates = [
    ...new Set([
      ...(term.includes(':') ? [term] : []),
      ...allActions().flatMap((action) => action.resourceKeyFor?.(term) ?? []),
    ]),
  ];
  const keys = candidates.length
    ? await db
        .selectDistinct({ key: proposals.resourceKey })
        .from(proposals)
        .where(and(eq(proposals.tenantId, tenantId), inArray(proposals.resourceKey, candidates)))
    : [];
  if (keys.length > 0) return { kind: 'resource', keys: keys.map((row) => row.key!).sort() };
  const [agent] = await db
    .select({ name: proposals.agentName })
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.agentName, term)))
    .limit(1);
  if (agent) return { kind: 'agent', name: agent.name };
  const people = await db
    .select({ id: users.id, name: users.name })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, tenantId)))
    .where(sql`(${users.email} = lower(${term}) or lower(${users.name}) = lower(${term}))`)
    .orderBy(asc(users.name));
  if (people.length > 0) return { kind: 'decider', userIds: people.map((p) => p.id), names: people.map((p) => p.name) };
  return { kind: 'none', term };
}

function targetCondition(target: SearchTarget | undefined): SQL | undefined {
  switch (target?.kind) {
    case 'resource':
      return target.keys.length === 1
        ? eq(proposals.resourceKey, target.keys[0]!)
        : inArray(proposals.resourceKey, target.keys);
    case 'agent':
      return eq(proposals.agentName, target.name);
    case 'decider':
      return sql`exists (select 1 from ${decisions}
        where ${decisions.proposalId} = ${proposals.id} and ${inArray(decisions.userId, target.userIds)})`;
    case 'none':
      return sql`false`;
    default:
      return undefined;
  }
}

/**
 * The keyset query behind a page (exported so tests can EXPLAIN it): newest first, `limit` + 1 rows to know if more
 * follow.
 */
export function proposalsListQuery(
  db: Database,
  tenantId: string,
  options: { status?: ProposalStatus; target?: SearchTarget; cursor?: ListCursor; limit: number },
) {
  const { cursor } = options;
  return db
    .select({ proposal: proposals, cursorAt: cursorInstant(proposals.createdAt) })
    .from(proposals)
    .where(
      and(
        eq(proposals.tenantId, tenantId),
        options.status ? eq(proposals.status, options.status) : undefined,
        targetCondition(options.target),
        cursor ? sql`(${proposals.createdAt}, ${proposals.id}) < (${cursor.at}::timestamptz, ${cursor.id})` : undefined,
      ),
    )
    .orderBy(desc(proposals.createdAt), desc(proposals.id))
    .limit(options.limit + 1);
}

/** Why a proposal is where it is, when its status needs a reason. */
function reasonOf(status: ProposalStatus, statusReason: string | null): string | null {
  if (statusReason) return statusReason;
  if (status === 'expired') return 'Nobody decided in time; a timeout never approves.';
  return null;
}

/** One page of the tenant's proposals in a view, with who decided each. */
export async function proposalListPage(
  db: Database,
  tenantId: string,
  view: ProposalListView,
  cursor?: ListCursor,
  limit = LIST_PAGE_SIZE,
): Promise<ProposalListPage> {
  const target = view.q ? await resolveSearch(db, tenantId, view.q) : undefined;
  if (target?.kind === 'none') return { items: [], nextCursor: null, target };
  const rows = await proposalsListQuery(db, tenantId, { status: view.status, target, cursor, limit });
  const page = rows.slice(0, limit);
  const ids = page.map((row) => row.proposal.id);
  const decided = ids.length
    ? await db
        .select({
          proposalId: decisions.proposalId,
          name: users.name,
          decision: decisions.decision,
          withdrawnAt: decisions.withdrawnAt,
        })
        .from(decisions)
        .innerJoin(users, eq(users.id, decisions.userId))
        .where(and(eq(decisions.tenantId, tenantId), inArray(decisions.proposalId, ids)))
        .orderBy(asc(decisions.createdAt))
    : [];
  const last = page.at(-1);
  return {
    target,
    nextCursor:
      rows.length > limit && last ? encodeCursor({ sort: 'newest', at: last.cursorAt, id: last.proposal.id }) : null,
    items: page.map(({ proposal: p }) => {
      const deciders = decided
        .filter((d) => d.proposalId === p.id)
        .map(({ name, decision, withdrawnAt }) => ({ name, decision, withdrawn: withdrawnAt !== null }));
      return {
        id: p.id,
        status: p.status,
        reason: reasonOf(p.status, p.statusReason),
        summary: findAction(p.action)?.summarize(p.payload.args, p.facts) ?? p.action,
        action: p.action,
        agent: p.agentName,
        deciders,
        approvals: { standing: standingApprovals(deciders).length, required: p.routing.approvals },
        createdAt: p.createdAt.toISOString(),
      };
    }),
  };
}
