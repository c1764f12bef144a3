import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { auth } from '@/lib/auth';
import { safeReturnPath } from '@/lib/auth/return-to';
import { env, oidcEnabled } from '@/lib/env';
import { signInWithSso } from './actions';
import { SignInForm } from './signin-form';

export const metadata: Metadata = { title: 'Sign in' };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const callbackUrl = safeReturnPath(params.callbackUrl);
  const session = await auth();
  if (session?.operatorId) redirect(callbackUrl);
  const sso = oidcEnabled();
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-4">
      <h1 className="mb-1 text-2xl font-semibold">Countersign</h1>
      <p className="mb-6 text-sm text-zinc-500">Sign in to review what your agents propose.</p>
      {params.error ? <p className="mb-4 text-sm text-red-700 dark:text-red-300">Sign-in failed. Check your details, or ask an administrator to add you.</p> : null}
      <SignInForm callbackUrl={callbackUrl} />
      {sso ? (
        <form action={signInWithSso} className="mt-4">
          <input type="hidden" name="callbackUrl" value={callbackUrl} />
          <button type="submit" data-testid="signin-sso" className="w-full rounded-md border border-zinc-300 px-4 py-2 font-medium dark:border-zinc-700">
            Continue with {env().OIDC_NAME}
          </button>
        </form>
      ) : null}
    </main>
  );
}
