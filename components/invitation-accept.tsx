'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { valueOrThrow } from '@/lib/client/operator-api';
import { acceptInvitation, type Accepted } from '@/lib/client/members-api';
import { INPUT, PRIMARY_BUTTON, ProblemText, SECONDARY_BUTTON } from './notification-ui';

type Props = { token: string; email: string; hasAccount: boolean; sso: string | null; minPassword: number };

/** Where the person goes once they have accepted: sign-in, their email filled in. */
const signInAfter = (accepted: Accepted) => `/signin?${new URLSearchParams({ email: accepted.email, invited: accepted.signIn }).toString()}`;

type FieldProps = { id: string; label: string; value: string; onChange: (value: string) => void; minLength?: number; describedBy?: string; invalid?: boolean };

function PasswordField({ id, label, value, onChange, minLength, describedBy, invalid }: FieldProps) {
  return (
    <label htmlFor={id} className="block text-sm font-medium">
      {label}
      <input
        id={id}
        data-testid={id}
        type="password"
        autoComplete="new-password"
        required
        minLength={minLength}
        maxLength={1024}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={describedBy}
        aria-invalid={invalid}
        className={INPUT}
      />
    </label>
  );
}

/**
 * Accepting an invitation: a new person chooses a password (twice) or, when single sign-on is
 * configured, accepts to use it; someone with an account already just accepts. The token goes in
 * the body of a same-origin POST, never into a log.
 */
export function InvitationAccept({ token, email, hasAccount, sso, minPassword }: Props) {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const router = useRouter();
  const accept = useMutation({
    mutationFn: async (way: { password?: string; sso?: true }) => valueOrThrow(await acceptInvitation({ token, ...way })),
    onSuccess: (accepted) => router.push(signInAfter(accepted)),
  });
  const pending = accept.isPending || accept.isSuccess;
  const done = accept.isSuccess ? <p role="status" data-testid="invitation-accepted" className="text-sm">Accepted. Taking you to sign-in…</p> : null;

  if (hasAccount) {
    return (
      <div className="space-y-3">
        <p className="text-sm">You already have a Countersign account with this email. Accept, then sign in as you do today{sso ? ` (password or ${sso})` : ''}.</p>
        <ProblemText error={accept.error} testId="invitation-error" />
        <button type="button" data-testid="invitation-accept" disabled={pending} onClick={() => accept.mutate({})} className={`w-full ${PRIMARY_BUTTON} py-2`}>
          {pending ? 'Accepting…' : 'Accept invitation'}
        </button>
        {done}
      </div>
    );
  }

  return (
    <div className="space-y-4">
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
        <PasswordField id="invitation-password" label="Choose a password" value={password} onChange={setPassword} minLength={minPassword} describedBy="invitation-password-hint" />
        <p id="invitation-password-hint" className="text-xs text-zinc-600 dark:text-zinc-400">At least {minPassword} characters; a short sentence is easy to remember.</p>
        <PasswordField id="invitation-confirm" label="Type it again" value={confirm} onChange={setConfirm} invalid={mismatch} />
        {mismatch ? <p role="alert" data-testid="invitation-mismatch" className="text-sm text-red-700 dark:text-red-300">The two passwords differ; type the same one twice.</p> : null}
        <ProblemText error={accept.error} testId="invitation-error" />
        <button type="submit" data-testid="invitation-accept" disabled={pending} className={`w-full ${PRIMARY_BUTTON} py-2`}>
          {pending ? 'Accepting…' : 'Accept and set password'}
        </button>
      </form>
      {sso ? (
        <div className="space-y-2 border-t border-zinc-200 pt-4 dark:border-zinc-800">
          <p className="text-sm text-zinc-600 dark:text-zinc-400">Or skip the password and sign in with {sso}: it recognises you by this email address.</p>
          <button type="button" data-testid="invitation-accept-sso" disabled={pending} onClick={() => accept.mutate({ sso: true })} className={`w-full ${SECONDARY_BUTTON} py-2`}>
            Accept and use {sso}
          </button>
        </div>
      ) : null}
      {done}
    </div>
  );
}
