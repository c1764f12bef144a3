'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { type Accepted, acceptInvitation, sendInvitationCode } from '@/lib/client/members-api';
import { OperatorApiError, valueOrThrow } from '@/lib/client/operator-api';
import { ProblemText } from './notification-ui';
import { Button } from './ui/button';
import { Input } from './ui/input';

type Props = {
  token: string;
  email: string;
  signedInAs: string | null;
  sso: string | null;
  minPassword: number;
  maxPassword: number;
};

/** Where the person goes once they have accepted: sign-in, their email filled in. */
const signInAfter = (accepted: Accepted) =>
  `/signin?${new URLSearchParams({ email: accepted.email, invited: accepted.signIn }).toString()}`;

type FieldProps = {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  minLength?: number;
  maxLength: number;
  describedBy?: string;
  invalid?: boolean;
};

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

type ProveProps = { token: string; email: string; minPassword: number; maxPassword: number; takeover: boolean };

/**
 * Proving the address, then choosing the password: step 1 emails the invited address a code (only
 * its owner reads it), step 2 takes the code with the password, and the server sets the password
 * only if the code is right. Nobody who merely holds the link can choose this account's password.
 */
function ProveAndChoose({ token, email, minPassword, maxPassword, takeover }: ProveProps) {
  const router = useRouter();
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const send = useMutation({ mutationFn: async () => valueOrThrow(await sendInvitationCode(token)) });
  // Once the code is on its way, the keyboard goes on where the code is typed.
  const codeField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (send.isSuccess) codeField.current?.focus();
  }, [send.isSuccess]);
  const accept = useMutation({
    mutationFn: async () => valueOrThrow(await acceptInvitation({ token, code, password })),
    onSuccess: (accepted) => router.push(signInAfter(accepted)),
  });
  const pending = accept.isPending || accept.isSuccess;
  return (
    <div data-testid="invitation-prove" className="space-y-4">
      <ol className="space-y-1 text-sm">
        <li>
          <strong>1.</strong> Prove that <strong className="break-all">{email}</strong> is yours: we email it a
          six-digit code.
        </li>
        <li>
          <strong>2.</strong> Type the code and choose your password.
        </li>
      </ol>
      <p data-testid="invitation-why-code" className="text-xs text-zinc-600 dark:text-zinc-400">
        Only the owner of the address ever chooses its password, so holding this link is not enough.
        {takeover
          ? ' Proving the address ends every session of this account and removes any password or passkey set ' +
            'before: only the one you choose now will work.'
          : null}
      </p>
      <ProblemText error={send.error} testId="invitation-code-send-error" />
      <Button
        variant={send.isSuccess ? 'secondary' : 'primary'}
        className="w-full"
        data-testid="invitation-code-send"
        disabled={send.isPending || pending}
        onClick={() => send.mutate()}
      >
        {send.isPending ? 'Sending…' : send.isSuccess ? 'Send another code' : `Email a code to ${email}`}
      </Button>
      {send.isSuccess ? (
        <p role="status" data-testid="invitation-code-sent" className="text-sm">
          Code sent to {send.data.sentTo}. It works once, for 15 minutes.
        </p>
      ) : null}
      {send.isSuccess ? (
        <form
          aria-label="Type the code and choose a password"
          data-testid="invitation-form"
          className="space-y-3"
          onSubmit={(event) => {
            event.preventDefault();
            setMismatch(password !== confirm);
            if (password === confirm) accept.mutate();
          }}
        >
          {/* For password managers: the account this password belongs to. */}
          <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
          <label htmlFor="invitation-code" className="block text-sm font-medium">
            Code from the email
            <Input
              ref={codeField}
              id="invitation-code"
              data-testid="invitation-code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              minLength={6}
              maxLength={6}
              required
              value={code}
              onChange={(e) => setCode(e.target.value.trim())}
              className="mt-1 font-mono tracking-widest"
            />
          </label>
          <PasswordField
            id="invitation-password"
            label="Choose a password"
            value={password}
            onChange={setPassword}
            minLength={minPassword}
            maxLength={maxPassword}
            describedBy="invitation-password-hint"
          />
          <p id="invitation-password-hint" className="text-xs text-zinc-600 dark:text-zinc-400">
            {minPassword} to {maxPassword} characters; a short sentence is easy to remember. Add a passkey under
            Settings → Security once you are in.
          </p>
          <PasswordField
            id="invitation-confirm"
            label="Type it again"
            value={confirm}
            onChange={setConfirm}
            maxLength={maxPassword}
            invalid={mismatch}
          />
          {mismatch ? (
            <p role="alert" data-testid="invitation-mismatch" className="text-sm text-red-700 dark:text-red-300">
              The two passwords differ; type the same one twice.
            </p>
          ) : null}
          <ProblemText error={accept.error} testId="invitation-error" />
          <Button variant="primary" className="w-full" type="submit" data-testid="invitation-accept" disabled={pending}>
            {pending ? 'Accepting…' : 'Prove the address and accept'}
          </Button>
          {accept.isSuccess ? (
            <p role="status" data-testid="invitation-accepted" className="text-sm">
              Accepted. Taking you to sign-in…
            </p>
          ) : null}
        </form>
      ) : null}
    </div>
  );
}

const needsProof = (error: unknown) => error instanceof OperatorApiError && error.problem.code === 'address_unverified';

/**
 * Signed in: the invited address accepts with its own session (proving the address if asked); another address is told
 * to sign out.
 */
function AcceptSignedIn({
  token,
  email,
  signedInAs,
  minPassword,
  maxPassword,
}: Omit<Props, 'sso'> & { signedInAs: string }) {
  const router = useRouter();
  const accept = useMutation({
    mutationFn: async () => valueOrThrow(await acceptInvitation({ token })),
    onSuccess: () => router.push('/'),
  });
  if (signedInAs !== email) {
    return (
      <p data-testid="invitation-other-account" className="text-sm">
        You are signed in as {signedInAs}, but this invitation is for {email}. Sign out, then open this link again.
      </p>
    );
  }
  if (needsProof(accept.error))
    return <ProveAndChoose token={token} email={email} minPassword={minPassword} maxPassword={maxPassword} takeover />;
  const pending = accept.isPending || accept.isSuccess;
  return (
    <div className="space-y-3">
      <p className="text-sm">You are signed in as {email}. Accept to join with this account.</p>
      <ProblemText error={accept.error} testId="invitation-error" />
      <Button
        variant="primary"
        className="w-full"
        data-testid="invitation-accept"
        disabled={pending}
        onClick={() => accept.mutate()}
      >
        {pending ? 'Accepting…' : 'Accept invitation'}
      </Button>
    </div>
  );
}

/**
 * Accepting an invitation. Signed out: the owner of the address proves it with the emailed code and
 * then chooses a password, or, when single sign-on is configured, accepts to use it (the provider
 * proves the address at sign-in); someone who has an account may sign in first instead. The page
 * never says whether the address has an account. The token goes in the body of a same-origin
 * POST, never into a log.
 */
export function InvitationAccept({ token, email, signedInAs, sso, minPassword, maxPassword }: Props) {
  const router = useRouter();
  const accept = useMutation({
    mutationFn: async () => valueOrThrow(await acceptInvitation({ token, sso: true })),
    onSuccess: (accepted) => router.push(signInAfter(accepted)),
  });
  if (signedInAs)
    return (
      <AcceptSignedIn
        token={token}
        email={email}
        signedInAs={signedInAs}
        minPassword={minPassword}
        maxPassword={maxPassword}
      />
    );
  const signInFirst = `/signin?${new URLSearchParams({ email, callbackUrl: `/invite/${token}` }).toString()}`;
  return (
    <div className="space-y-4">
      <ProveAndChoose
        token={token}
        email={email}
        minPassword={minPassword}
        maxPassword={maxPassword}
        takeover={false}
      />
      {sso ? (
        <div className="space-y-2 border-t border-zinc-200 pt-4 dark:border-zinc-800">
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Or skip the password: sign in with {sso}, which proves the address is yours.
          </p>
          <ProblemText error={accept.error} testId="invitation-sso-error" />
          <Button
            variant="secondary"
            className="w-full"
            data-testid="invitation-accept-sso"
            disabled={accept.isPending || accept.isSuccess}
            onClick={() => accept.mutate()}
          >
            Accept and use {sso}
          </Button>
        </div>
      ) : null}
      <p className="border-t border-zinc-200 pt-4 text-sm dark:border-zinc-800">
        Already have a Countersign account for this address?{' '}
        <a
          href={signInFirst}
          data-testid="invitation-signin-first"
          className="font-medium underline underline-offset-2"
        >
          Sign in first
        </a>
        , then accept here.
      </p>
    </div>
  );
}
