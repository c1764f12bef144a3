import 'server-only';
import { and, asc, desc, eq, gt, inArray, isNotNull, lt, type SQL, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import {
  type AuditEvent,
  agentKeys,
  auditEvents,
  commands,
  decisions,
  executions,
  grants,
  memberships,
  type Proposal,
  proposals,
  users,
} from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import { agentLabel } from '@/lib/events/actor-label';
import { chainPending } from '@/lib/events/chainer';
import { AUDIT_EVENTS, auditEventTitle } from '@/lib/events/registry';
import { isProposalId } from '@/lib/ids';
import { parseSequence } from '@/lib/paging/fields';
import { decodeInstantCursor, encodeInstantCursor, type InstantCursor } from '@/lib/paging/instant-cursor';
import { cursorInstant } from '@/lib/paging/sql';
import { actorResolver } from './actors';
import type { HistoryFilters } from './history-filters';
import {
  type DecisionRowView,
  type EventRowView,
  type HistoryPage,
  OUTCOME_STATUSES,
  withdrawalEventWords,
} from './history-view';

/**
 * The decision history an auditor reads (docs/design.md §8): one row per decided or ended proposal,
 * and every audit event with names and words. Both page by keyset (never OFFSET) over indexes of
 * migration 0007: decisions by (tenant, decided_at, id), events by (tenant, seq) and, filtered,
 * (tenant, type, seq), (tenant, actor_type, actor_id, seq) and (proposal_id, seq).
 */
export const HISTORY_PAGE_SIZE = 50;

/** A `q` that names a proposal (`prp_…`) is matched exactly, by its index; anything else is text. */
const proposalIdIn = (q: string | undefined) => (q && isProposalId(q) ? q : undefined);
const textIn = (q: string | undefined) => (q && !isProposalId(q) ? containing(q) : undefined);

/** `q` as a LIKE pattern matching the text anywhere, its own % and _ taken literally. */
const containing = (q: string) => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/** The proposals the action, agent and outcome filters leave (a sub-select; undefined when none is set). */
function proposalConditions(tenantId: string, filters: HistoryFilters): SQL[] {
  return [
    filters.action ? eq(proposals.action, filters.action) : undefined,
    filters.agent ? eq(proposals.agentName, filters.agent) : undefined,
    filters.outcome
      ? inArray(proposals.status, OUTCOME_STATUSES[filters.outcome] as (typeof proposals.status.enumValues)[number][])
      : undefined,
  ].filter((condition): condition is SQL => condition !== undefined);
}

export type EventsOrder = { order: 'desc'; before?: number } | { order: 'asc'; after?: number };

/**
 * One keyset page of a tenant's audit events (exported so tests can EXPLAIN it). Newest first for
 * the page, oldest first for the export (so a verifier reads the chain in order). Filters on the
 * proposal an event is about are a sub-select the planner answers as a semi-join beside the
 * ordered index scan; `q` is a proposal id (`prp_…`: exact, its index) or text matched in the type, reason
 * code and data of the rows the ordered scan reads.
 */
export function eventsQuery(
  db: Database,
  tenantId: string,
  filters: HistoryFilters,
  order: EventsOrder,
  limit: number,
) {
  const about = proposalConditions(tenantId, filters);
  const id = proposalIdIn(filters.q);
  const text = textIn(filters.q);
  return db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.tenantId, tenantId),
        filters.type ? eq(auditEvents.type, filters.type) : undefined,
        filters.person ? and(eq(auditEvents.actorType, 'user'), eq(auditEvents.actorId, filters.person)) : undefined,
        filters.since ? sql`${auditEvents.occurredAt} >= ${filters.since.toISOString()}::timestamptz` : undefined,
        filters.until ? sql`${auditEvents.occurredAt} < ${filters.until.toISOString()}::timestamptz` : undefined,
        about.length > 0
          ? inArray(
              auditEvents.proposalId,
              db
                .select({ id: proposals.id })
                .from(proposals)
                .where(and(eq(proposals.tenantId, tenantId), ...about)),
            )
          : undefined,
        id ? eq(auditEvents.proposalId, id) : undefined,
        text
          ? sql`(${auditEvents.type} ilike ${text} or ${auditEvents.reasonCode} ilike ${text}
              or ${auditEvents.data}::text ilike ${text})`
          : undefined,
        order.order === 'desc' && order.before ? lt(auditEvents.seq, order.before) : undefined,
        order.order === 'asc' && order.after ? gt(auditEvents.seq, order.after) : undefined,
      ),
    )
    .orderBy(order.order === 'desc' ? desc(auditEvents.seq) : asc(auditEvents.seq))
    .limit(limit);
}

/** The event in words: what the registry says it records, then its data. */
export function eventText(event: Pick<AuditEvent, 'type' | 'data'>): string {
  const about =
    event.type === 'proposal.approved' && typeof event.data.grant === 'string'
      ? `approved under standing grant ${event.data.grant}, in its granter's name: no person looked at it`
      : event.type === 'proposal.approval_withdrawn'
        ? withdrawalEventWords(event.data)
        : ((AUDIT_EVENTS as Record<string, string>)[event.type] ?? event.type);
  const details = Object.entries(event.data).map(([key, value]) => `${key}: ${value === null ? '—' : String(value)}`);
  return details.length > 0 ? `${about} — ${details.join('; ')}` : about;
}

/** The stored text of a timestamp column as an ISO instant (`2030-01-01T10:00:00.123Z`). */
const isoInstant = (value: string) => new Date(value).toISOString();

/** The Events view: one keyset page, newest first; `cursor` is the last sequence number shown. */
export async function eventsPage(
  db: Database,
  tenantId: string,
  filters: HistoryFilters,
  cursor?: string,
): Promise<HistoryPage<EventRowView>> {
  const before = parseSequence(cursor);
  // The first page shows every event committed so far; later pages are older than their cursor.
  if (before === undefined) await chainPending(db, tenantId);
  const rows = await eventsQuery(db, tenantId, filters, { order: 'desc', before }, HISTORY_PAGE_SIZE + 1);
  const page = rows.slice(0, HISTORY_PAGE_SIZE);
  const actorOf = await actorResolver(db, tenantId, page);
  return {
    items: page.map((row) => {
      const actor = actorOf(row);
      return {
        ...row,
        occurredAt: isoInstant(row.occurredAt),
        text: eventText(row),
        title: auditEventTitle(row.type),
        actorName: actor.name,
        actorLabel: actor.label,
      };
    }),
    nextCursor: rows.length > HISTORY_PAGE_SIZE ? String(page.at(-1)!.seq) : null,
  };
}

/**
 * Where a Decisions page ended: the last row's decision time and id; undefined when it is not one this history wrote.
 */
export const decodeDecisionCursor = decodeInstantCursor;

/**
 * The Decisions view's keyset query (exported so tests can EXPLAIN it): proposals with a decision
 * time, newest decision first, over the partial index (tenant_id, decided_at, id). `person` keeps
 * proposals that person decided; `q` is a proposal id or text in action, agent, reason and args.
 */
export function decisionsQuery(
  db: Database,
  tenantId: string,
  filters: HistoryFilters,
  cursor: InstantCursor | undefined,
  limit: number,
) {
  return db
    .select({ proposal: proposals, cursorAt: cursorInstant(proposals.decidedAt) })
    .from(proposals)
    .where(
      and(
        ...decisionConditions(tenantId, filters),
        cursor ? sql`(${proposals.decidedAt}, ${proposals.id}) < (${cursor.at}::timestamptz, ${cursor.id})` : undefined,
      ),
    )
    .orderBy(desc(proposals.decidedAt), desc(proposals.id))
    .limit(limit);
}

/** The proposals the Decisions view shows under `filters`, every page of them. */
function decisionConditions(tenantId: string, filters: HistoryFilters): SQL[] {
  const id = proposalIdIn(filters.q);
  const text = textIn(filters.q);
  return [
    eq(proposals.tenantId, tenantId),
    isNotNull(proposals.decidedAt),
    ...proposalConditions(tenantId, filters),
    filters.person
      ? sql`exists (select 1 from ${decisions}
          where ${decisions.proposalId} = ${proposals.id} and ${decisions.userId} = ${filters.person})`
      : undefined,
    filters.since ? sql`${proposals.decidedAt} >= ${filters.since.toISOString()}::timestamptz` : undefined,
    filters.until ? sql`${proposals.decidedAt} < ${filters.until.toISOString()}::timestamptz` : undefined,
    id ? eq(proposals.id, id) : undefined,
    text
      ? sql`(${proposals.action} ilike ${text} or ${proposals.agentName} ilike ${text}
          or ${proposals.statusReason} ilike ${text} or (${proposals.payload}->'args')::text ilike ${text})`
      : undefined,
  ].filter((condition): condition is SQL => condition !== undefined);
}

/**
 * One keyset page, oldest first, of the events behind the decisions the Decisions view shows under
 * `filters` (what its export holds): every event of each such proposal, whatever its type or time.
 */
export function decisionEventsQuery(
  db: Database,
  tenantId: string,
  filters: HistoryFilters,
  after: number,
  limit: number,
) {
  const shown = db
    .select({ id: proposals.id })
    .from(proposals)
    .where(and(...decisionConditions(tenantId, filters)));
  return db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.tenantId, tenantId),
        inArray(auditEvents.proposalId, shown),
        after ? gt(auditEvents.seq, after) : undefined,
      ),
    )
    .orderBy(asc(auditEvents.seq))
    .limit(limit);
}

/**
 * The action's sentence for a proposal; a row the action cannot word (an unknown action, odd args) shows its action
 * name.
 */
function summaryOf(proposal: Proposal): string {
  try {
    return findAction(proposal.action)?.summarize(proposal.payload.args, proposal.facts) ?? proposal.action;
  } catch {
    return proposal.action;
  }
}

/**
 * The executions of some proposals (exported so tests can EXPLAIN it), reached through their
 * commands: executions has no index on proposal_id, so asking it by proposal read the whole table
 * on every page (a Seq Scan over every execution of every tenant); commands_one_per_proposal and
 * executions_command_key answer it from indexes.
 */
export function executionsOfQuery(db: Database, tenantId: string, proposalIds: string[]) {
  return db
    .select({
      proposalId: commands.proposalId,
      status: executions.status,
      receipt: executions.receipt,
      errorCode: executions.errorCode,
    })
    .from(commands)
    .innerJoin(executions, and(eq(executions.commandId, commands.id), eq(executions.tenantId, tenantId)))
    .where(and(eq(commands.tenantId, tenantId), inArray(commands.proposalId, proposalIds)));
}

/** Each standing grant's granter by name, for the proposals of a page a grant approved. */
async function grantsOf(db: Database, tenantId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: grants.id, name: users.name })
    .from(grants)
    .innerJoin(users, eq(users.id, grants.grantedBy))
    .where(and(eq(grants.tenantId, tenantId), inArray(grants.id, ids)));
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** The Decisions view: one keyset page with who decided, the execution and the summary in words. */
export async function decisionsPage(
  db: Database,
  tenantId: string,
  filters: HistoryFilters,
  cursor?: string,
): Promise<HistoryPage<DecisionRowView>> {
  const rows = await decisionsQuery(db, tenantId, filters, decodeDecisionCursor(cursor), HISTORY_PAGE_SIZE + 1);
  const page = rows.slice(0, HISTORY_PAGE_SIZE);
  const ids = page.map((row) => row.proposal.id);
  const [decided, executed] = ids.length
    ? await Promise.all([
        db
          .select({
            proposalId: decisions.proposalId,
            name: users.name,
            decision: decisions.decision,
            withdrawnAt: decisions.withdrawnAt,
          })
          .from(decisions)
          .innerJoin(users, eq(users.id, decisions.userId))
          .where(and(eq(decisions.tenantId, tenantId), inArray(decisions.proposalId, ids)))
          .orderBy(asc(decisions.createdAt)),
        executionsOfQuery(db, tenantId, ids),
      ])
    : [[], []];
  const granted = await grantsOf(
    db,
    tenantId,
    page.map((row) => row.proposal.grantId).filter((id): id is string => id !== null),
  );
  const last = page.at(-1);
  return {
    items: page.map(({ proposal }) => {
      const execution = executed.find((row) => row.proposalId === proposal.id);
      const receiptId = (execution?.receipt as { id?: unknown } | null)?.id;
      const decidedAt = proposal.decidedAt ?? proposal.updatedAt;
      return {
        id: proposal.id,
        at: decidedAt.toISOString(),
        createdAt: proposal.createdAt.toISOString(),
        summary: summaryOf(proposal),
        action: proposal.action,
        agent: proposal.agentName,
        agentLabel: agentLabel(proposal.agentName),
        agentKeyId: proposal.agentKeyId,
        status: proposal.status,
        deciders: decided
          .filter((row) => row.proposalId === proposal.id)
          .map(({ name, decision, withdrawnAt }) => ({ name, decision, withdrawn: withdrawnAt !== null })),
        grant: proposal.grantId
          ? { id: proposal.grantId, from: granted.get(proposal.grantId) ?? 'a former member' }
          : null,
        reason: proposal.statusReason,
        revisionReason: proposal.revisionReason,
        execution: execution
          ? {
              status: execution.status,
              receiptId: typeof receiptId === 'string' ? receiptId : null,
              errorCode: execution.errorCode,
            }
          : null,
        payloadHash: proposal.payloadHash,
        timeToDecisionMs: decidedAt.getTime() - proposal.createdAt.getTime(),
      };
    }),
    nextCursor:
      rows.length > HISTORY_PAGE_SIZE && last ? encodeInstantCursor({ at: last.cursorAt, id: last.proposal.id }) : null,
  };
}

/** The filters' choices: the tenant's members (by name) and its agents. */
export async function historyChoices(
  db: Database,
  tenantId: string,
): Promise<{ people: { id: string; name: string }[]; agents: string[] }> {
  const [people, agents] = await Promise.all([
    db
      .select({ id: users.id, name: users.name })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(memberships.tenantId, tenantId))
      .orderBy(asc(users.name)),
    db
      .selectDistinct({ name: agentKeys.agentName })
      .from(agentKeys)
      .where(eq(agentKeys.tenantId, tenantId))
      .orderBy(asc(agentKeys.agentName)),
  ]);
  return { people, agents: agents.map((row) => row.name) };
}
