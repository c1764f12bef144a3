'use server';

import { AuthError } from 'next-auth';
import { signIn, SignInThrottled } from '@/lib/auth';
import { safeReturnPath } from '@/lib/auth/return-to';

export type SignInState = { error?: string };

const THROTTLED = 'Too many failed sign-ins for this account from here. Wait a few minutes and try again.';

export async function signInWithPassword(_previous: SignInState, formData: FormData): Promise<SignInState> {
  try {
    await signIn('credentials', {
      email: formData.get('email'),
      password: formData.get('password'),
      redirectTo: safeReturnPath(formData.get('callbackUrl')),
    });
    return {};
  } catch (error) {
    // A successful sign-in throws Next's redirect, which must propagate.
    if (error instanceof SignInThrottled) return { error: THROTTLED };
    if (error instanceof AuthError) return { error: 'That email and password do not match an account.' };
    throw error;
  }
}

export async function signInWithSso(formData: FormData): Promise<void> {
  await signIn('oidc', { redirectTo: safeReturnPath(formData.get('callbackUrl')) });
}
