'use client';

import { useActionState } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { type SignInState, signInWithPassword } from './actions';

export function SignInForm({ callbackUrl, email }: { callbackUrl: string; email?: string }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signInWithPassword, {});
  return (
    <form action={action} className="space-y-4" data-testid="signin-form">
      <input type="hidden" name="callbackUrl" value={callbackUrl} />
      <label className="block text-sm font-medium">
        Email
        <Input
          name="email"
          type="email"
          autoComplete="username"
          required
          defaultValue={email}
          data-testid="signin-email"
          className="mt-1"
        />
      </label>
      <label className="block text-sm font-medium">
        Password
        <Input
          name="password"
          type="password"
          autoComplete="current-password"
          required
          data-testid="signin-password"
          className="mt-1"
        />
      </label>
      <div role="alert">
        {state.error ? (
          <p data-testid="signin-error" className="text-sm text-red-700 dark:text-red-300">
            {state.error}
          </p>
        ) : null}
      </div>
      <Button
        variant="primary"
        size="lg"
        type="submit"
        disabled={pending}
        data-testid="signin-submit"
        className="w-full"
      >
        {pending ? 'Signing in…' : 'Sign in'}
      </Button>
    </form>
  );
}
