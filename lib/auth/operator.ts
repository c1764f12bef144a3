import 'server-only';
import { and, eq } from 'drizzle-orm';
import { cache } from 'react';
import type { Database } from '@/db';
import { memberships, type Role, tenants, users } from '@/db/schema';
import { getDb } from '@/lib/database';
import { auth } from './index';

export type Operator = {
  userId: string;
  email: string;
  name: string;
  memberships: { tenantId: string; tenantName: string; role: Role }[];
};

/** The signed-in person, re-read from the database on every request: a removed user has no session. */
export const currentOperator = cache(async (): Promise<Operator | undefined> => {
  const session = await auth();
  const userId = session?.operatorId;
  if (!userId) return undefined;
  const db = await getDb();
  return loadOperator(db, userId);
});

export async function loadOperator(db: Database, userId: string): Promise<Operator | undefined> {
  const [user] = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  if (!user) return undefined;
  const rows = await db
    .select({ tenantId: memberships.tenantId, tenantName: tenants.name, role: memberships.role })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(eq(memberships.userId, userId))
    .orderBy(memberships.tenantId);
  return { userId: user.id, email: user.email, name: user.name, memberships: rows };
}

/** The person's role in a tenant, read now (a revoked role takes effect on the next request). */
export async function roleIn(db: Database, userId: string, tenantId: string): Promise<Role | undefined> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), eq(memberships.tenantId, tenantId)))
    .limit(1);
  return row?.role;
}
