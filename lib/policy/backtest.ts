import { and, desc, eq, gte, inArray, lt, or } from 'drizzle-orm';
import type { Database } from '@/db';
import { type ProposalStatus, proposals, type Routing } from '@/db/schema';
import { AGGREGATED_STATUSES, aggregateKey, type PriorTotal } from './aggregate';
import { aggregateNeeds, type LoadedPolicy, routeProposal } from './routing';

/**
 * The backtest of a policy plan: the tenant's recent proposals routed again by the current policy
 * and by the draft, with the router itself (`routeProposal`), to list those whose routing would
 * flip. Reads only; tenant-scoped by the query.
 *
 * Aggregate bounds are summed in memory over the replayed proposals themselves: for each one, the
 * earlier replayed proposals of the same action on the same resource inside the rule's window,
 * whose status now counts (`AGGREGATED_STATUSES`), its revision parent left out — as intake would
 * have summed them, with today's statuses. Proposals older than the backtest period are not read,
 * so the first ones of the period may sum less than intake saw; both policies are summed the same
 * way, so a flip is never an artefact of that.
 */

export const BACKTEST_DEFAULT_DAYS = 30;
export const BACKTEST_MAX_DAYS = 365;
/** The most proposals one backtest replays (the newest ones); `truncated` says when there were more. */
export const BACKTEST_LIMIT = 10_000;
const BATCH = 500;

/** What a proposal was or would be routed to, without the version or the sums. */
export type RoutedAs = Pick<Routing, 'rule' | 'outcome' | 'approvals' | 'role'>;

export type BacktestFlip = {
  proposalId: string;
  action: string;
  createdAt: string;
  summary: string;
  before: RoutedAs;
  after: RoutedAs;
};

export type Backtest = {
  days: number;
  since: string;
  /** How many proposals were replayed. */
  proposals: number;
  limit: number;
  /** True when the period held more than `limit` proposals: only the newest `limit` were replayed. */
  truncated: boolean;
  flips: BacktestFlip[];
};

type Replayed = {
  id: string;
  action: string;
  resourceKey: string | null;
  status: ProposalStatus;
  parentId: string | null;
  createdAt: Date;
  args: Record<string, unknown>;
};

/**
 * The tenant's proposals of `actions` created since `since`, newest first by keyset in batches, at most `limit` (+1 to
 * tell).
 */
async function readProposals(
  db: Database,
  tenantId: string,
  actions: string[],
  since: Date,
  limit: number,
): Promise<Replayed[]> {
  const rows: Replayed[] = [];
  let after: { createdAt: Date; id: string } | undefined;
  while (rows.length <= limit) {
    const batch = await db
      .select({
        id: proposals.id,
        action: proposals.action,
        resourceKey: proposals.resourceKey,
        status: proposals.status,
        parentId: proposals.parentId,
        createdAt: proposals.createdAt,
        payload: proposals.payload,
      })
      .from(proposals)
      .where(
        and(
          eq(proposals.tenantId, tenantId),
          gte(proposals.createdAt, since),
          inArray(proposals.action, actions),
          after
            ? or(
                lt(proposals.createdAt, after.createdAt),
                and(eq(proposals.createdAt, after.createdAt), lt(proposals.id, after.id)),
              )
            : undefined,
        ),
      )
      .orderBy(desc(proposals.createdAt), desc(proposals.id))
      .limit(Math.min(BATCH, limit + 1 - rows.length));
    rows.push(...batch.map(({ payload, ...row }) => ({ ...row, args: payload.args })));
    const last = batch.at(-1);
    if (!last || rows.length > limit) break;
    after = { createdAt: last.createdAt, id: last.id };
  }
  return rows;
}

const counted = new Set<string>(AGGREGATED_STATUSES);

/** The sums `policy`'s aggregate bounds need for `proposal`, from the earlier replayed proposals on its resource. */
function priorsFor(policy: LoadedPolicy, proposal: Replayed, earlier: Replayed[]): Map<string, PriorTotal> {
  const priors = new Map<string, PriorTotal>();
  for (const need of aggregateNeeds(policy)) {
    const from = proposal.createdAt.getTime() - need.windowHours * 3_600_000;
    let count = 0;
    let sum = 0;
    for (const other of earlier) {
      const value = other.args[need.field];
      if (
        other.id === proposal.parentId ||
        !counted.has(other.status) ||
        other.createdAt.getTime() < from ||
        typeof value !== 'number'
      )
        continue;
      count += 1;
      sum += value;
    }
    priors.set(aggregateKey(need), { count, sum });
  }
  return priors;
}

const routedAs = ({ rule, outcome, approvals, role }: Routing): RoutedAs => ({ rule, outcome, approvals, role });
const flipped = (a: RoutedAs, b: RoutedAs) =>
  a.outcome !== b.outcome || a.approvals !== b.approvals || a.role !== b.role;

/** "issue_refund on ord_1843": the action and its resource id, never an argument's value. */
function summaryOf(proposal: Replayed): string {
  const resource = proposal.resourceKey?.replace(/^[a-z]+:/, '');
  return resource ? `${proposal.action} on ${resource}` : proposal.action;
}

/**
 * Replays the tenant's proposals of the last `days` days of each action in `policies` by its
 * current and its draft policy; a flip is a change of outcome, number of approvers or role (not
 * only of the deciding rule's id). Flips are listed oldest first.
 */
export async function backtest(
  db: Database,
  tenantId: string,
  policies: Map<string, { current: LoadedPolicy; draft: LoadedPolicy }>,
  days: number,
  now = new Date(),
  limit = BACKTEST_LIMIT,
): Promise<Backtest> {
  const since = new Date(now.getTime() - days * 86_400_000);
  const read = policies.size === 0 ? [] : await readProposals(db, tenantId, [...policies.keys()], since, limit);
  const truncated = read.length > limit;
  const replayed = read.slice(0, limit).reverse();
  const byResource = new Map<string, Replayed[]>();
  const flips: BacktestFlip[] = [];
  for (const proposal of replayed) {
    const key = `${proposal.action}\u0000${proposal.resourceKey ?? proposal.id}`;
    const earlier = byResource.get(key) ?? [];
    const pair = policies.get(proposal.action)!;
    const before = routedAs(routeProposal(pair.current, proposal.args, priorsFor(pair.current, proposal, earlier)));
    const after = routedAs(routeProposal(pair.draft, proposal.args, priorsFor(pair.draft, proposal, earlier)));
    if (flipped(before, after))
      flips.push({
        proposalId: proposal.id,
        action: proposal.action,
        createdAt: proposal.createdAt.toISOString(),
        summary: summaryOf(proposal),
        before,
        after,
      });
    earlier.push(proposal);
    byResource.set(key, earlier);
  }
  return { days, since: since.toISOString(), proposals: replayed.length, limit, truncated, flips };
}
