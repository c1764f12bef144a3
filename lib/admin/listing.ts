import 'server-only';
import { asc, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, memberships, users } from '@/db/schema';

export async function listAgentKeys(db: Database, tenantId: string) {
  return db
    .select({
      id: agentKeys.id,
      agentName: agentKeys.agentName,
      keyPrefix: agentKeys.keyPrefix,
      allowedActions: agentKeys.allowedActions,
      grants: agentKeys.grants,
      createdAt: agentKeys.createdAt,
      revokedAt: agentKeys.revokedAt,
    })
    .from(agentKeys)
    .where(eq(agentKeys.tenantId, tenantId))
    .orderBy(asc(agentKeys.agentName), asc(agentKeys.createdAt));
}

export async function listMembers(db: Database, tenantId: string) {
  return db
    .select({
      userId: users.id,
      name: users.name,
      email: users.email,
      role: memberships.role,
      joinedAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.tenantId, tenantId))
    .orderBy(asc(users.email));
}
