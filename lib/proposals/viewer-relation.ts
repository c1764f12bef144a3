import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals, type Role } from '@/db/schema';
import { roleAtLeast, ROLES } from '@/lib/auth/roles';

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

