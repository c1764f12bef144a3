'use server';

import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { signOut } from '@/lib/auth';
import { currentOperator } from '@/lib/auth/operator';
import { TENANT_COOKIE } from '@/lib/dashboard/context';

/** Switches the tenant in view; only to a tenant the person belongs to. */
export async function chooseTenant(formData: FormData): Promise<void> {
  const operator = await currentOperator();
  if (!operator) redirect('/signin');
  const tenantId = formData.get('tenantId');
  if (typeof tenantId !== 'string' || !operator.memberships.some((m) => m.tenantId === tenantId)) return;
  (await cookies()).set(TENANT_COOKIE, tenantId, { httpOnly: true, sameSite: 'lax', path: '/' });
  redirect('/');
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: '/signin' });
}
