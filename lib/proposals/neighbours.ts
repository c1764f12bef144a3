import 'server-only';
import { and, asc, desc, eq, gt, type SQL, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, decisions, proposals, type Role } from '@/db/schema';
import { ROLES, roleAtLeast } from '@/lib/auth/roles';
import { cursorInstant } from '@/lib/paging/sql';

/** Who is moving through the queue: a member of the tenant, with their role there. */
export type NeighbourViewer = { userId: string; role: Role };

/** The proposals before and after one in the queue's default order (expiring first), or null at either end. */
export type Neighbours = { previous: string | null; next: string | null };

/**
 * What the viewer could decide, as a condition on `proposals`: a role the routing rule names that
 * theirs covers, not initiated by them (the agent acts for them or they made the revision) and not
 * already decided by them. Editors further up a revision chain are not followed here (the page
 * still bars them). A viewer decides nothing, so for them every pending proposal is a neighbour.
 */
function decidableBy(viewer: NeighbourViewer): SQL | undefined {
  const roles = ROLES.filter((role) => role !== 'viewer' && roleAtLeast(viewer.role, role));
  if (roles.length === 0) return undefined;
  return and(
    sql`${proposals.routing}->>'role' in (${sql.join(
      roles.map((role) => sql`${role}`),
      sql`, `,
    )})`,
    sql`${proposals.initiatedByUserId} is distinct from ${viewer.userId}`,
    sql`not exists (select 1 from ${agentKeys}
      where ${agentKeys.id} = ${proposals.agentKeyId} and ${agentKeys.onBehalfOfUserId} = ${viewer.userId})`,
    sql`not exists (select 1 from ${decisions}
      where ${decisions.proposalId} = ${proposals.id} and ${decisions.userId} = ${viewer.userId})`,
  );
}

/**
 * The one neighbour query (exported so tests can EXPLAIN it): the first pending, unexpired
 * proposal of the tenant strictly after (or before) `anchor` by (expires_at, id) that the viewer
 * could decide. It walks proposals_queue_idx from the anchor and stops at the first match.
 */
export function neighbourQuery(
  db: Database,
  tenantId: string,
  anchor: { id: string; expiresAt: string },
  direction: 'next' | 'previous',
  viewer: NeighbourViewer,
  now: Date,
) {
  const after = direction === 'next';
  const position = after
    ? sql`(${proposals.expiresAt}, ${proposals.id}) > (${anchor.expiresAt}::timestamptz, ${anchor.id})`
    : sql`(${proposals.expiresAt}, ${proposals.id}) < (${anchor.expiresAt}::timestamptz, ${anchor.id})`;
  return db
    .select({ id: proposals.id })
    .from(proposals)
    .where(
      and(
        eq(proposals.tenantId, tenantId),
        eq(proposals.status, 'pending_approval'),
        position,
        gt(proposals.expiresAt, now),
        decidableBy(viewer),
      ),
    )
    .orderBy(
      ...(after ? [asc(proposals.expiresAt), asc(proposals.id)] : [desc(proposals.expiresAt), desc(proposals.id)]),
    )
    .limit(1);
}

/**
 * The proposals a person would reach with `j` and `k` from this one: the next and previous in the
 * queue's order that still wait for them. The anchor may itself be decided already (its place in
 * the order stays); an unknown or another tenant's id has no neighbours.
 */
export async function neighboursOf(
  db: Database,
  tenantId: string,
  proposalId: string,
  viewer: NeighbourViewer,
  now = new Date(),
): Promise<Neighbours> {
  const [anchor] = await db
    .select({ id: proposals.id, expiresAt: cursorInstant(proposals.expiresAt) })
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.id, proposalId)))
    .limit(1);
  if (!anchor) return { previous: null, next: null };
  const [[previous], [next]] = await Promise.all([
    neighbourQuery(db, tenantId, anchor, 'previous', viewer, now),
    neighbourQuery(db, tenantId, anchor, 'next', viewer, now),
  ]);
  return { previous: previous?.id ?? null, next: next?.id ?? null };
}
