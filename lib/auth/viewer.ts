import 'server-only';
import { cookies } from 'next/headers';
import { currentOperator, type Operator } from './operator';

/** The cookie that says which of a person's tenants the dashboard shows (set by the tenant switcher). */
export const TENANT_COOKIE = 'cs_tenant';

export type Membership = Operator['memberships'][number];

/** Who is looking, and the tenant they are looking at (none when they belong to no tenant). */
export type Viewer = { operator: Operator; membership: Membership | undefined };

/**
 * The one answer to "who is the viewer, and in which tenant", for pages and the API alike: the
 * signed-in person, re-read from the database on this request, and the membership the `cs_tenant`
 * cookie names among theirs, else their first. The cookie only chooses among the person's
 * memberships, never grants one. Undefined without a session.
 */
export async function currentViewer(): Promise<Viewer | undefined> {
  const operator = await currentOperator();
  if (!operator) return undefined;
  const chosen = (await cookies()).get(TENANT_COOKIE)?.value;
  return { operator, membership: operator.memberships.find((m) => m.tenantId === chosen) ?? operator.memberships[0] };
}
