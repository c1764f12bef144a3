import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { Button } from '@/components/ui/button';
import { auth } from '@/lib/auth';
import { safeReturnPath } from '@/lib/auth/return-to';
import { env, oidcEnabled } from '@/lib/env';
import { signInWithSso } from './actions';
import { SignInForm } from './signin-form';

export const metadata: Metadata = { title: 'Sign in' };

/** After accepting an invitation (app/invite/[token]): what to do next, by how the person signs in. */
const INVITED: Record<string, string> = {
  password: 'Invitation accepted. Sign in with the password you just chose.',
  sso: 'Invitation accepted. Sign in with single sign-on below.',
  existing: 'Invitation accepted. Sign in as you usually do; switch to the new tenant at the top of the page.',
};

const text = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const callbackUrl = safeReturnPath(params.callbackUrl);
  const session = await auth();
  if (session?.operatorId) redirect(callbackUrl);
  const sso = oidcEnabled();
  const invited = INVITED[text(params.invited) ?? ''];
  const email = text(params.email)?.slice(0, 254);
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-4">
      <h1 className="mb-1 text-2xl font-semibold">Countersign</h1>
      <p className="mb-6 text-sm text-zinc-500">Sign in to review what your agents propose.</p>
      {invited ? (
        <p
          role="status"
          data-testid="signin-invited"
          className={
            'mb-4 rounded-md border border-green-300 bg-green-50 p-3 text-sm text-green-900 dark:border-green-800 ' +
            'dark:bg-green-950 dark:text-green-200'
          }
        >
          {invited}
        </p>
      ) : null}
      {params.error ? (
        <p role="alert" data-testid="signin-failed" className="mb-4 text-sm text-red-700 dark:text-red-300">
          Sign-in failed. Check your details, or ask an administrator to add you.
        </p>
      ) : null}
      <SignInForm callbackUrl={callbackUrl} email={email} />
      {sso ? (
        <form action={signInWithSso} className="mt-4">
          <input type="hidden" name="callbackUrl" value={callbackUrl} />
          <Button type="submit" size="lg" data-testid="signin-sso" className="w-full">
            Continue with {env().OIDC_NAME}
          </Button>
        </form>
      ) : null}
    </main>
  );
}
