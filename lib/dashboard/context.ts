import 'server-only';
import { redirect } from 'next/navigation';
import type { Role } from '@/db/schema';
import type { Operator } from '@/lib/auth/operator';
import { currentViewer } from '@/lib/auth/viewer';

export type DashboardContext = { operator: Operator; tenantId: string; tenantName: string; role: Role };

/**
 * Every dashboard page starts here: the viewer (lib/auth/viewer.ts, as the API sees them; without a
 * session, to sign-in, returning to `returnTo`) and the tenant they are looking at.
 */
export async function dashboardContext(
  returnTo: string,
): Promise<DashboardContext | { operator: Operator; tenantId: null }> {
  const viewer = await currentViewer();
  if (!viewer) redirect(`/signin?callbackUrl=${encodeURIComponent(returnTo)}`);
  const { operator, membership } = viewer;
  if (!membership) return { operator, tenantId: null };
  return { operator, tenantId: membership.tenantId, tenantName: membership.tenantName, role: membership.role };
}
