'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { OperatorApiError, valueOrThrow } from '@/lib/client/operator-api';
import { acceptInvitation, sendEmailCode, verifyEmailCode, type Accepted } from '@/lib/client/members-api';
import { ProblemText } from './notification-ui';
import { Button } from './ui/button';
import { Input } from './ui/input';

type Props = { token: string; email: string; signedInAs: string | null; sso: string | null; minPassword: number; maxPassword: number };

/** Where the person goes once they have accepted: sign-in, their email filled in. */
const signInAfter = (accepted: Accepted) => `/signin?${new URLSearchParams({ email: accepted.email, invited: accepted.signIn }).toString()}`;

type FieldProps = { id: string; label: string; value: string; onChange: (value: string) => void; minLength?: number; maxLength: number; describedBy?: string; invalid?: boolean };

function PasswordField({ id, label, value, onChange, minLength, maxLength, describedBy, invalid }: FieldProps) {
  return (
    <label htmlFor={id} className="block text-sm font-medium">
      {label}
      <Input
        id={id}
        data-testid={id}
        type="password"
        autoComplete="new-password"
        required
        minLength={minLength}
        maxLength={maxLength}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={describedBy}
        aria-invalid={invalid}
        className="mt-1"
      />
    </label>
  );
}

/**
 * Proving the address before joining a second team: send a code to it, type the code, then accept
 * again. The code travels only in the email.
 */
function ProveAddress({ email, onProven }: { email: string; onProven: () => void }) {
  const [code, setCode] = useState('');
  const send = useMutation({ mutationFn: async () => valueOrThrow(await sendEmailCode()) });
  const check = useMutation({ mutationFn: async () => valueOrThrow(await verifyEmailCode(code)), onSuccess: onProven });
  return (
    <div data-testid="invitation-prove" className="space-y-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <p className="text-sm">To join another team, first prove that <strong>{email}</strong> is yours: we email it a six-digit code.</p>
      <ProblemText error={send.error} testId="invitation-code-send-error" />
      <Button variant="secondary" className="w-full" data-testid="invitation-code-send" disabled={send.isPending} onClick={() => send.mutate()}>
        {send.isSuccess ? 'Send another code' : 'Send code'}
      </Button>
      {send.isSuccess ? (
        <form
          aria-label="Enter the code"
          className="space-y-2"
          onSubmit={(event) => {
            event.preventDefault();
            check.mutate();
          }}
        >
          <label htmlFor="invitation-code" className="block text-sm font-medium">
            Code from the email
            <Input id="invitation-code" data-testid="invitation-code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required value={code} onChange={(e) => setCode(e.target.value.trim())} className="mt-1" />
          </label>
          <ProblemText error={check.error} testId="invitation-code-error" />
          <Button variant="primary" className="w-full" type="submit" data-testid="invitation-code-check" disabled={check.isPending}>Prove address</Button>
        </form>
      ) : null}
    </div>
  );
}

const needsProof = (error: unknown) => error instanceof OperatorApiError && error.problem.code === 'address_unverified';

/** Signed in: the invited address accepts with its own session (proving the address if asked); another address is told to sign out. */
function AcceptSignedIn({ token, email, signedInAs }: { token: string; email: string; signedInAs: string }) {
  const router = useRouter();
  const accept = useMutation({ mutationFn: async () => valueOrThrow(await acceptInvitation({ token })), onSuccess: () => router.push('/') });
  if (signedInAs !== email) {
    return <p data-testid="invitation-other-account" className="text-sm">You are signed in as {signedInAs}, but this invitation is for {email}. Sign out, then open this link again.</p>;
  }
  const pending = accept.isPending || accept.isSuccess;
  return (
    <div className="space-y-3">
      <p className="text-sm">You are signed in as {email}. Accept to join with this account.</p>
      {needsProof(accept.error) ? <ProveAddress email={email} onProven={() => accept.mutate()} /> : <ProblemText error={accept.error} testId="invitation-error" />}
      <Button variant="primary" className="w-full" data-testid="invitation-accept" disabled={pending} onClick={() => accept.mutate()}>
        {pending ? 'Accepting…' : 'Accept invitation'}
      </Button>
    </div>
  );
}

/**
 * Accepting an invitation: signed out, a new person chooses a password (twice) or, when single
 * sign-on is configured, accepts to use it; someone who has an account signs in first (the page
 * cannot know, and never says, whether the address has one). The token goes in the body of a
 * same-origin POST, never into a log.
 */
export function InvitationAccept({ token, email, signedInAs, sso, minPassword, maxPassword }: Props) {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const router = useRouter();
  const accept = useMutation({
    mutationFn: async (way: { password?: string; sso?: true }) => valueOrThrow(await acceptInvitation({ token, ...way })),
    onSuccess: (accepted) => router.push(signInAfter(accepted)),
  });
  if (signedInAs) return <AcceptSignedIn token={token} email={email} signedInAs={signedInAs} />;
  const pending = accept.isPending || accept.isSuccess;
  const done = accept.isSuccess ? <p role="status" data-testid="invitation-accepted" className="text-sm">Accepted. Taking you to sign-in…</p> : null;
  const signInFirst = `/signin?${new URLSearchParams({ email, callbackUrl: `/invite/${token}` }).toString()}`;

  return (
    <div className="space-y-4">
      <p className="text-sm">
        Already have a Countersign account for this address? <a href={signInFirst} data-testid="invitation-signin-first" className="font-medium underline underline-offset-2">Sign in first</a>, then accept here.
      </p>
      <form
        aria-label="Choose a password and accept"
        data-testid="invitation-form"
        className="space-y-3"
        onSubmit={(event) => {
          event.preventDefault();
          setMismatch(password !== confirm);
          if (password === confirm) accept.mutate({ password });
        }}
      >
        {/* For password managers: the account this password belongs to. */}
        <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
        <PasswordField id="invitation-password" label="Choose a password" value={password} onChange={setPassword} minLength={minPassword} maxLength={maxPassword} describedBy="invitation-password-hint" />
        <p id="invitation-password-hint" className="text-xs text-zinc-600 dark:text-zinc-400">{minPassword} to {maxPassword} characters; a short sentence is easy to remember.</p>
        <PasswordField id="invitation-confirm" label="Type it again" value={confirm} onChange={setConfirm} maxLength={maxPassword} invalid={mismatch} />
        {mismatch ? <p role="alert" data-testid="invitation-mismatch" className="text-sm text-red-700 dark:text-red-300">The two passwords differ; type the same one twice.</p> : null}
        <ProblemText error={accept.error} testId="invitation-error" />
        <Button variant="primary" className="w-full" type="submit" data-testid="invitation-accept" disabled={pending}>
          {pending ? 'Accepting…' : 'Accept and set password'}
        </Button>
      </form>
      {sso ? (
        <div className="space-y-2 border-t border-zinc-200 pt-4 dark:border-zinc-800">
          <p className="text-sm text-zinc-600 dark:text-zinc-400">Or skip the password and sign in with {sso}: it recognises you by this email address.</p>
          <Button variant="secondary" className="w-full" data-testid="invitation-accept-sso" disabled={pending} onClick={() => accept.mutate({ sso: true })}>
            Accept and use {sso}
          </Button>
        </div>
      ) : null}
      {done}
    </div>
  );
}
