import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals, type Role } from '@/db/schema';
import { ROLES, roleAtLeast } from '@/lib/auth/roles';

/** Who looks at the queue: a member of its tenant, with their role there. */
export type QueueViewer = { userId: string; role: Role };

/** The most revisions a chain is walked through in SQL (a chain never loops; this only bounds bad data). */
export const MAX_REVISION_DEPTH = 64;

/**
 * The viewer's relation to a proposal row of the outer query, as SQL over `proposals` (docs/design.md §6,
 * the rules decide() enforces under lock; lib/decisions/initiators.ts is their source):
 * - `decided`: they have a decision on it (an approval: a rejection ends it);
 * - `onBehalf`: its agent key acts for them;
 * - `edited`: they edited it or any revision before it — `initiated_by_user_id` of this row or of
 *   an ancestor along `parent_id` (revise.ts sets both) — so the list agrees with initiatorsOf() at
 *   any depth (bounded by MAX_REVISION_DEPTH). Walked down once per query, not up once per row:
 *   the revisions they made (proposals_initiated_idx) and their descendants (proposals_parent_idx),
 *   a set the rows are looked up in by hash;
 * - `mayDecide`: their role reaches the routing rule's (viewers never);
 * - `needsYou`: all of that says it is theirs to decide now, and it is not past its expiry.
 * Each per-row subquery is answered by an index: decisions (proposal_id, user_id), the agent key by
 * primary key. So each row costs a few index probes, and the planner's estimate stays that small.
 */
export function viewerRelation(viewer: QueueViewer, asOf: Date) {
  // Written with explicit names: drizzle leaves columns unqualified in a one-table select list,
  // where "id" inside a subquery would name the subquery's own table. `proposals` is the outer row.
  const user = viewer.userId;
  const decided = sql<boolean>`exists (select 1 from decisions d
    where d.proposal_id = proposals.id and d.user_id = ${user})`;
  const onBehalf = sql<boolean>`exists (select 1 from agent_keys k
    where k.id = proposals.agent_key_id and k.on_behalf_of_user_id = ${user})`;
  // A revision's descendants stay in its tenant, and ids are unique across tenants: no tenant condition needed.
  const edited = sql<boolean>`(proposals.id in (
    with recursive lineage (id, depth) as (
      select e.id, 0 from proposals e where e.initiated_by_user_id = ${user}
      union all
      select c.id, lineage.depth + 1 from lineage join proposals c on c.parent_id = lineage.id
      where lineage.depth < ${MAX_REVISION_DEPTH}
    )
    select lineage.id from lineage))`;
  const roles = ROLES.filter((role) => role !== 'viewer' && roleAtLeast(viewer.role, role));
  const mayDecide =
    roles.length > 0
      ? sql<boolean>`coalesce(proposals.routing->>'role' in (${sql.join(
          roles.map((role) => sql`${role}`),
          sql`, `,
        )}), false)`
      : sql<boolean>`false`;
  const needsYou = sql<boolean>`(proposals.expires_at > ${asOf.toISOString()}::timestamptz
    and ${mayDecide} and not ${decided} and not ${onBehalf} and not ${edited})`;
  return { decided, onBehalf, edited, mayDecide, needsYou };
}

/** Per proposal of a page: approvals so far, and the viewer's relation to it. */
export type ViewerFacts = { approvals: number; decided: boolean; onBehalf: boolean; edited: boolean };

export async function viewerFactsFor(
  db: Database,
  tenantId: string,
  ids: string[],
  viewer: QueueViewer,
  asOf: Date,
): Promise<Map<string, ViewerFacts>> {
  if (ids.length === 0) return new Map();
  const relation = viewerRelation(viewer, asOf);
  const rows = await db
    .select({
      id: proposals.id,
      approvals: sql<number>`(select count(*)::int from decisions d
        where d.proposal_id = proposals.id and d.decision = 'approve')`,
      decided: relation.decided,
      onBehalf: relation.onBehalf,
      edited: relation.edited,
    })
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), inArray(proposals.id, ids)));
  return new Map(
    rows.map((row) => [
      row.id,
      {
        approvals: Number(row.approvals),
        decided: Boolean(row.decided),
        onBehalf: Boolean(row.onBehalf),
        edited: Boolean(row.edited),
      },
    ]),
  );
}
