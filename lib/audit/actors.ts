import 'server-only';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, memberships, users } from '@/db/schema';
import { type ActorShown, actorLabel } from '@/lib/events/actor-label';

/** Who did something, as an audit event records it (`actorName`: the name it recorded, null on older events). */
export type ActorRef = { actorType: string; actorId: string; actorName?: string | null };

/**
 * Names for the actors of a page of events in one query whatever the page holds (never one per
 * row), inside the tenant: people through their membership of it, agents by the tenant's own keys.
 * A person no longer a member, or a key since deleted, keeps the name the event recorded; with
 * neither, the id stands in (still in words: "person usr_…").
 */
export async function actorResolver(
  db: Database,
  tenantId: string,
  rows: readonly ActorRef[],
): Promise<(row: ActorRef) => ActorShown> {
  const userIds = [...new Set(rows.filter((row) => row.actorType === 'user').map((row) => row.actorId))];
  const keyIds = [...new Set(rows.filter((row) => row.actorType === 'agent').map((row) => row.actorId))];
  const people = () =>
    db
      .select({ type: sql<string>`'user'`.as('type'), id: users.id, name: users.name })
      .from(users)
      .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, tenantId)))
      .where(inArray(users.id, userIds));
  const agents = () =>
    db
      .select({ type: sql<string>`'agent'`.as('type'), id: agentKeys.id, name: agentKeys.agentName })
      .from(agentKeys)
      .where(and(eq(agentKeys.tenantId, tenantId), inArray(agentKeys.id, keyIds)));
  const found =
    userIds.length && keyIds.length
      ? await people().unionAll(agents())
      : userIds.length
        ? await people()
        : keyIds.length
          ? await agents()
          : [];
  const names = new Map(found.map((row) => [`${row.type}:${row.id}`, row.name]));
  return (row) =>
    actorLabel(row.actorType, row.actorId, names.get(`${row.actorType}:${row.actorId}`) ?? row.actorName ?? undefined);
}
