import { and, count, desc, eq, gte, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { type PgSelect, QueryBuilder } from 'drizzle-orm/pg-core';
import type { Database } from '@/db';
import { decisions, memberships, proposals, proposalViews, tenants, users, type ViewChannel } from '@/db/schema';
import { Refusal } from '@/lib/errors/refusal';
import { daysParam } from '@/lib/input/days';

/** The window of the figures: the last `days` days (query parameter, 1–90, default 7). */
export const OVERSIGHT_DEFAULT_DAYS = 7;
export const OVERSIGHT_MAX_DAYS = 90;

/**
 * At most this many rows per table: the groups are people, actions and channels, so a tenant never reaches it in
 * practice.
 */
const GROUP_LIMIT = 500;

export function oversightDays(value: string | null): number {
  return daysParam(value, { fallback: OVERSIGHT_DEFAULT_DAYS, max: OVERSIGHT_MAX_DAYS, about: 'The oversight window' });
}

/** The rubber-stamp alarm's settings (tenants columns); any of them 0 turns the alarm off. */
export type OversightSettings = { minDecisions: number; approvalRatePercent: number; medianDwellSeconds: number };

/** Milliseconds; null where nothing was measured (no decision). */
type Ms = number | null;

export type DecisionFigures = {
  decisions: number;
  approvals: number;
  /** approvals / decisions, 0–1. */
  approvalRate: number;
  /** From the proposal waiting (created) to this person's decision. */
  waitP50Ms: Ms;
  waitP95Ms: Ms;
  /**
   * From the server first serving the proposal to this person to their decision; 0 for a decision with no first look
   * before it.
   */
  dwellP50Ms: Ms;
  dwellP10Ms: Ms;
  /** Decisions with a recorded first look before them; the rest count as zero dwell. */
  dwellMeasured: number;
};

export type ApproverFigures = DecisionFigures & { userId: string; name: string; rubberStamp: boolean };
export type ActionFigures = DecisionFigures & { action: string; expired: number; stale: number };
/**
 * The channel that brought the person: `notification`, `queue`, `page`, `api`, or `unknown` (no first look recorded:
 * zero dwell).
 */
export type ChannelFigures = DecisionFigures & { channel: ViewChannel | 'unknown' };

export type OversightFigures = {
  days: number;
  from: string;
  to: string;
  settings: OversightSettings;
  approvers: ApproverFigures[];
  actions: ActionFigures[];
  channels: ChannelFigures[];
  expired: number;
  stale: number;
};

/**
 * The decider's first look at the decision's proposal: one primary-key probe per decision, as a
 * lateral subquery. A plain join let the planner hash the whole views table instead (a sequential
 * scan of every first look ever recorded, for a window that holds a few thousand decisions).
 */
const firstLook = new QueryBuilder()
  .select({ firstSeenAt: proposalViews.firstSeenAt, channel: proposalViews.channel })
  .from(proposalViews)
  .where(and(eq(proposalViews.proposalId, decisions.proposalId), eq(proposalViews.userId, decisions.userId)))
  .limit(1)
  .as('first_look');

const msBetween = (later: SQL, earlier: SQL) => sql`extract(epoch from (${later} - ${earlier})) * 1000`;
const waitMs = msBetween(sql`${decisions.createdAt}`, sql`${proposals.createdAt}`);
/** A first look the server recorded before the decision (a row written later cannot be, but fail closed). */
const lookedBefore = sql`${firstLook.firstSeenAt} <= ${decisions.createdAt}`;
/**
 * Dwell counts from the server first serving the proposal to the person; a decision with no such
 * look (an API call on an id it was never served, a look that does not precede it) counts as zero,
 * so the alarm sees it rather than leaving it unmeasured.
 */
const dwellMs = sql`case when ${lookedBefore}
  then ${msBetween(sql`${decisions.createdAt}`, sql`${firstLook.firstSeenAt}`)} else 0 end`;
const percentile = (fraction: number, of: SQL) =>
  sql<number | null>`percentile_cont(${sql.raw(String(fraction))}) within group (order by ${of})`.mapWith((value) =>
    value === null ? null : Math.round(Number(value)),
  );

const measures = {
  decisions: count(),
  approvals: sql<number>`count(*) filter (where ${decisions.decision} = 'approve')`.mapWith(Number),
  waitP50Ms: percentile(0.5, waitMs),
  waitP95Ms: percentile(0.95, waitMs),
  dwellP50Ms: percentile(0.5, dwellMs),
  dwellP10Ms: percentile(0.1, dwellMs),
  dwellMeasured: sql<number>`count(*) filter (where ${lookedBefore})`.mapWith(Number),
};

const channelOf = sql<ViewChannel | 'unknown'>`coalesce(${firstLook.channel}::text, 'unknown')`;

type Measured = {
  decisions: number;
  approvals: number;
  waitP50Ms: Ms;
  waitP95Ms: Ms;
  dwellP50Ms: Ms;
  dwellP10Ms: Ms;
  dwellMeasured: number;
};

function figuresOf(row: Measured): DecisionFigures {
  return { ...row, approvalRate: row.decisions === 0 ? 0 : row.approvals / row.decisions };
}

/** Whether an approver's figures look like rubber-stamping under the tenant's settings (docs/oversight.md). */
export function looksRubberStamped(
  figures: Pick<DecisionFigures, 'decisions' | 'approvalRate' | 'dwellP50Ms'>,
  settings: OversightSettings,
): boolean {
  if (settings.minDecisions === 0 || settings.approvalRatePercent === 0 || settings.medianDwellSeconds === 0)
    return false;
  return (
    figures.decisions >= settings.minDecisions &&
    figures.approvalRate * 100 >= settings.approvalRatePercent &&
    figures.dwellP50Ms !== null &&
    figures.dwellP50Ms < settings.medianDwellSeconds * 1000
  );
}

export async function oversightSettingsOf(db: Database, tenantId: string): Promise<OversightSettings | undefined> {
  const [row] = await db
    .select({
      minDecisions: tenants.oversightMinDecisions,
      approvalRatePercent: tenants.oversightApprovalRatePercent,
      medianDwellSeconds: tenants.oversightMedianDwellSeconds,
    })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return row;
}

/** Decisions with their proposal and the decider's first look (proposals and views by primary key). */
function withProposalAndView<T extends PgSelect>(query: T) {
  return query
    .innerJoin(proposals, and(eq(proposals.id, decisions.proposalId), eq(proposals.tenantId, decisions.tenantId)))
    .leftJoinLateral(firstLook, sql`true`);
}

/** The tenant's decisions in [from, to): the one filter of every figure (decisions_tenant_recent_idx). */
const decidedIn = (tenantId: string, from: Date, to: Date) =>
  and(eq(decisions.tenantId, tenantId), gte(decisions.createdAt, from), lt(decisions.createdAt, to));

/** The query behind `approverFigures` (exported for its plan test). */
export function approverFiguresQuery(db: Database, tenantId: string, from: Date, to: Date) {
  return withProposalAndView(
    db
      .select({ userId: decisions.userId, name: users.name, ...measures })
      .from(decisions)
      .innerJoin(users, eq(users.id, decisions.userId))
      .$dynamic(),
  )
    .where(decidedIn(tenantId, from, to))
    .groupBy(decisions.userId, users.name)
    .orderBy(desc(count()), users.name)
    .limit(GROUP_LIMIT);
}

/** Every approver's figures in [from, to), most decisions first. */
export async function approverFigures(
  db: Database,
  tenantId: string,
  from: Date,
  to: Date,
  settings: OversightSettings,
): Promise<ApproverFigures[]> {
  const rows = await approverFiguresQuery(db, tenantId, from, to);
  return rows.map(({ userId, name, ...row }) => {
    const figures = figuresOf(row);
    return { userId, name, ...figures, rubberStamp: looksRubberStamped(figures, settings) };
  });
}

/**
 * The oversight figures of a tenant over the last `days` days before `now` (docs/oversight.md), for
 * a member of it (any role); anyone else gets 404, the answer an unknown tenant gets.
 */
export async function oversightFigures(
  db: Database,
  viewer: { userId: string; tenantId: string },
  days: number,
  now = new Date(),
): Promise<OversightFigures> {
  const [member] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.tenantId, viewer.tenantId), eq(memberships.userId, viewer.userId)));
  const figures = member ? await tenantOversight(db, viewer.tenantId, days, now) : undefined;
  if (!figures) throw new Refusal('not_found', 'No tenant with that id.');
  return figures;
}

/**
 * A tenant's oversight figures, undefined for an unknown tenant; who may read them is the caller's
 * check (`oversightFigures`, or the CLI's database access). Every figure is aggregated in SQL over
 * the window's decisions; nothing is loaded row by row.
 */
export async function tenantOversight(
  db: Database,
  tenantId: string,
  days: number,
  now = new Date(),
): Promise<OversightFigures | undefined> {
  const settings = await oversightSettingsOf(db, tenantId);
  if (!settings) return undefined;
  const to = now;
  const from = new Date(now.getTime() - days * 86_400_000);

  const [approvers, actionRows, channelRows, ended] = await Promise.all([
    approverFigures(db, tenantId, from, to, settings),
    withProposalAndView(
      db
        .select({ action: proposals.action, ...measures })
        .from(decisions)
        .$dynamic(),
    )
      .where(decidedIn(tenantId, from, to))
      .groupBy(proposals.action)
      .orderBy(proposals.action)
      .limit(GROUP_LIMIT),
    withProposalAndView(
      db
        .select({ channel: channelOf, ...measures })
        .from(decisions)
        .$dynamic(),
    )
      .where(decidedIn(tenantId, from, to))
      .groupBy(channelOf)
      .orderBy(channelOf),
    // Ended undecided (proposals_decided_idx: decided_at is set when a proposal ends, whatever the end).
    db
      .select({ action: proposals.action, status: proposals.status, n: count() })
      .from(proposals)
      .where(
        and(
          eq(proposals.tenantId, tenantId),
          gte(proposals.decidedAt, from),
          lt(proposals.decidedAt, to),
          inArray(proposals.status, ['expired', 'stale']),
        ),
      )
      .groupBy(proposals.action, proposals.status)
      .limit(GROUP_LIMIT),
  ]);
  const endedOf = (action: string, status: 'expired' | 'stale') =>
    ended.find((row) => row.action === action && row.status === status)?.n ?? 0;
  const measuredActions = actionRows.map(({ action, ...row }) => ({
    action,
    ...figuresOf(row),
    expired: endedOf(action, 'expired'),
    stale: endedOf(action, 'stale'),
  }));
  const undecidedOnly = [...new Set(ended.map((row) => row.action))]
    .filter((action) => !measuredActions.some((row) => row.action === action))
    .map((action) => ({
      action,
      ...figuresOf({
        decisions: 0,
        approvals: 0,
        waitP50Ms: null,
        waitP95Ms: null,
        dwellP50Ms: null,
        dwellP10Ms: null,
        dwellMeasured: 0,
      }),
      expired: endedOf(action, 'expired'),
      stale: endedOf(action, 'stale'),
    }));
  return {
    days,
    from: from.toISOString(),
    to: to.toISOString(),
    settings,
    approvers,
    actions: [...measuredActions, ...undecidedOnly].sort((a, b) => a.action.localeCompare(b.action)),
    channels: channelRows.map(({ channel, ...row }) => ({ channel, ...figuresOf(row) })),
    expired: ended.filter((row) => row.status === 'expired').reduce((sum, row) => sum + row.n, 0),
    stale: ended.filter((row) => row.status === 'stale').reduce((sum, row) => sum + row.n, 0),
  };
}
