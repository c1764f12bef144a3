import 'server-only';
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import type { Role } from '@/db/schema';
import { currentOperator, type Operator } from '@/lib/auth/operator';

export const TENANT_COOKIE = 'cs_tenant';

export type DashboardContext = { operator: Operator; tenantId: string; tenantName: string; role: Role };

/**
 * The membership a request acts in: the one the `cs_tenant` cookie names, else the first. The
 * cookie only chooses among the person's memberships (re-read from the database), never grants one.
 */
export async function chosenMembership(operator: Operator): Promise<Operator['memberships'][number] | undefined> {
  const chosen = (await cookies()).get(TENANT_COOKIE)?.value;
  return operator.memberships.find((m) => m.tenantId === chosen) ?? operator.memberships[0];
}

/**
 * Every dashboard page starts here: the signed-in person (else to sign-in, returning to
 * `returnTo`) and the tenant they are looking at. The cookie only chooses among their memberships.
 */
export async function dashboardContext(returnTo: string): Promise<DashboardContext | { operator: Operator; tenantId: null }> {
  const operator = await currentOperator();
  if (!operator) redirect(`/signin?callbackUrl=${encodeURIComponent(returnTo)}`);
  const membership = await chosenMembership(operator);
  if (!membership) return { operator, tenantId: null };
  return { operator, tenantId: membership.tenantId, tenantName: membership.tenantName, role: membership.role };
}
