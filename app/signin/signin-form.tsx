'use client';

import { useActionState } from 'react';
import { signInWithPassword, type SignInState } from './actions';

export function SignInForm({ callbackUrl, email }: { callbackUrl: string; email?: string }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signInWithPassword, {});
  return (
    <form action={action} className="space-y-4" data-testid="signin-form">
      <input type="hidden" name="callbackUrl" value={callbackUrl} />
      <label className="block text-sm font-medium">
        Email
        <input name="email" type="email" autoComplete="username" required defaultValue={email} data-testid="signin-email" className="mt-1 block w-full rounded-md border border-zinc-300 bg-transparent px-3 py-2 dark:border-zinc-700" />
      </label>
      <label className="block text-sm font-medium">
        Password
        <input name="password" type="password" autoComplete="current-password" required data-testid="signin-password" className="mt-1 block w-full rounded-md border border-zinc-300 bg-transparent px-3 py-2 dark:border-zinc-700" />
      </label>
      <div role="alert">{state.error ? <p data-testid="signin-error" className="text-sm text-red-700 dark:text-red-300">{state.error}</p> : null}</div>
      <button type="submit" disabled={pending} data-testid="signin-submit" className="w-full rounded-md bg-zinc-900 px-4 py-2 font-medium text-white disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900">
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
