'use server';

import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { signOut } from '@/lib/auth';
import { usesSecureCookies } from '@/lib/auth/cookies';
import { currentOperator } from '@/lib/auth/operator';
import { endAllSessions } from '@/lib/auth/sessions';
import { TENANT_COOKIE } from '@/lib/auth/viewer';
import { getDb } from '@/lib/database';

/** Switches the tenant in view; only to a tenant the person belongs to. */
export async function chooseTenant(formData: FormData): Promise<void> {
  const operator = await currentOperator();
  if (!operator) redirect('/signin');
  const tenantId = formData.get('tenantId');
  if (typeof tenantId !== 'string' || !operator.memberships.some((m) => m.tenantId === tenantId)) return;
  (await cookies()).set(TENANT_COOKIE, tenantId, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: usesSecureCookies(),
  });
  redirect('/');
}

/** Ends this session on the server (its row, then the cookie) and shows the sign-in page. */
export async function signOutAction(): Promise<void> {
  await signOut({ redirect: false });
  redirect('/signin');
}

/** Ends every session of the signed-in person (other browsers and devices too), then this one. */
export async function signOutEverywhereAction(): Promise<void> {
  const operator = await currentOperator();
  if (operator)
    await endAllSessions(await getDb(), operator.userId, 'signed_out_everywhere', {
      type: 'user',
      id: operator.userId,
    });
  await signOutAction();
}
