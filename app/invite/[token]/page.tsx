import type { Metadata } from 'next';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { InvitationAccept } from '@/components/invitation-accept';
import { ROLE_ABOUT } from '@/components/member-roles';
import { ViewerTime } from '@/components/viewer-time';
import { type InvitationView, invitationByToken } from '@/lib/admin/invitations';
import { MIN_PASSWORD } from '@/lib/admin/requests';
import { currentOperator } from '@/lib/auth/operator';
import { MAX_PASSWORD } from '@/lib/auth/password-rules';
import { getDb } from '@/lib/database';
import { env, oidcEnabled } from '@/lib/env';

// The token is in this page's address: never send it on as a Referer.
export const metadata: Metadata = { title: 'Invitation', referrer: 'no-referrer' };

function Frame({ children }: { children: ReactNode }) {
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-4 py-10">
      <p className="mb-6 font-semibold tracking-tight">Countersign</p>
      {children}
    </main>
  );
}

const GONE: Record<
  Exclude<InvitationView['state'], 'pending'>,
  { title: string; text: (tenant?: string) => string }
> = {
  unknown: {
    title: 'This invitation link does not work',
    text: () =>
      'It may be cut short (check that you copied all of it), or it never existed. Ask an admin of your team ' +
      'for a new link.',
  },
  used: {
    title: 'This invitation was already accepted',
    text: () => 'Each invitation link works once. If it was you who accepted it, sign in.',
  },
  expired: {
    title: 'This invitation has expired',
    text: (tenant) =>
      `Links work for 72 hours, and an admin may have cancelled this one. Ask an admin ` +
      `of ${tenant ?? 'your team'} for a new link.`,
  },
};

export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const view = await invitationByToken(await getDb(), token);
  if (view.state !== 'pending') {
    const gone = GONE[view.state];
    return (
      <Frame>
        <section
          data-testid="invitation-gone"
          data-state={view.state}
          aria-labelledby="invitation-heading"
          className="space-y-3"
        >
          <h1 id="invitation-heading" className="text-2xl font-semibold">
            {gone.title}
          </h1>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            {gone.text('tenantName' in view ? view.tenantName : undefined)}
          </p>
          <p>
            <Link
              href="/signin"
              data-testid="invitation-signin"
              className="text-sm font-medium underline underline-offset-2"
            >
              Go to sign-in →
            </Link>
          </p>
        </section>
      </Frame>
    );
  }
  const sso = oidcEnabled() ? env().OIDC_NAME : null;
  return (
    <Frame>
      <section data-testid="invitation" aria-labelledby="invitation-heading" className="space-y-5">
        <div className="space-y-1">
          <h1 id="invitation-heading" className="text-2xl font-semibold">
            Join <span data-testid="invitation-tenant">{view.tenantName}</span>
          </h1>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            You are invited as {view.role === 'admin' ? 'an' : 'a'}{' '}
            <strong data-testid="invitation-role">{view.role}</strong>: {ROLE_ABOUT[view.role]}.
          </p>
        </div>
        <dl
          className={
            'grid grid-cols-[6rem_1fr] gap-x-3 gap-y-1 rounded-lg border border-zinc-200 bg-white p-4 text-sm ' +
            'dark:border-zinc-800 dark:bg-zinc-900'
          }
        >
          <dt className="text-zinc-500">Name</dt>
          <dd data-testid="invitation-name" className="min-w-0 break-words">
            {view.name}
          </dd>
          <dt className="text-zinc-500">Email</dt>
          <dd data-testid="invitation-email" className="min-w-0 break-all font-mono text-xs leading-5">
            {view.email}
          </dd>
          <dt className="text-zinc-500">Link expires</dt>
          <dd>
            <ViewerTime value={view.expiresAt.toISOString()} />
          </dd>
        </dl>
        <InvitationAccept
          token={token}
          email={view.email}
          signedInAs={(await currentOperator())?.email ?? null}
          sso={sso}
          minPassword={MIN_PASSWORD}
          maxPassword={MAX_PASSWORD}
        />
      </section>
    </Frame>
  );
}
