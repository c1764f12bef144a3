'use server';

import { AuthError } from 'next-auth';
import { SignInThrottled, signIn } from '@/lib/auth';
import { safeReturnPath } from '@/lib/auth/return-to';

export type SignInState = { error?: string };

const THROTTLED = 'Too many failed sign-ins for this account from here. Wait a few minutes and try again.';
const MISMATCH = 'That email and password do not match an account.';

/** A form field as text; a server action is a public endpoint, so a crafted post may send anything (or nothing). */
function field(formData: unknown, name: string): string | undefined {
  if (!(formData instanceof FormData)) return undefined;
  const value = formData.get(name);
  return typeof value === 'string' ? value : undefined;
}

export async function signInWithPassword(_previous: unknown, formData: unknown): Promise<SignInState> {
  const email = field(formData, 'email');
  const password = field(formData, 'password');
  if (email === undefined || password === undefined) return { error: MISMATCH };
  try {
    await signIn('credentials', { email, password, redirectTo: safeReturnPath(field(formData, 'callbackUrl')) });
    return {};
  } catch (error) {
    // A successful sign-in throws Next's redirect, which must propagate.
    if (error instanceof SignInThrottled) return { error: THROTTLED };
    if (error instanceof AuthError) return { error: MISMATCH };
    throw error;
  }
}

export async function signInWithSso(formData: unknown): Promise<void> {
  await signIn('oidc', { redirectTo: safeReturnPath(field(formData, 'callbackUrl')) });
}
