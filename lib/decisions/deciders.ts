import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { memberships, type Proposal, type Role } from '@/db/schema';
import { roleAtLeast } from '@/lib/auth/roles';
import { notFound, Refusal } from '@/lib/errors/refusal';

/**
 * The person's role in the proposal's tenant, read now, when it is enough to act on the
 * proposal: not a member → 404 (indistinguishable from a missing id); too low → forbidden_role.
 */
export async function requireDecider(
  db: Database,
  proposal: Pick<Proposal, 'tenantId' | 'routing'>,
  userId: string,
  doing: 'Deciding' | 'Extending' | 'Editing' | 'Asking to re-propose',
): Promise<Role> {
  const [membership] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.tenantId, proposal.tenantId), eq(memberships.userId, userId)))
    .limit(1);
  if (!membership) throw notFound();
  if (!roleAtLeast(membership.role, proposal.routing.role)) {
    throw new Refusal(
      'decision_forbidden_role',
      `${doing} this proposal needs the ${proposal.routing.role} role; you are ${membership.role}.`,
    );
  }
  return membership.role;
}
