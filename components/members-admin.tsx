'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CopyButton } from '@/components/copy-button';
import {
  cancelInvitation,
  fetchMembers,
  inviteMember,
  type MemberRole,
  type PendingInvitationView,
} from '@/lib/client/members-api';
import { valueOrThrow } from '@/lib/client/operator-api';
import { AdminQuery } from './admin-query';
import { ROLE_ABOUT, ROLE_ORDER } from './member-roles';
import { type Manage, MEMBERS_KEY, MemberTable } from './member-table';
import { CARD, CardForm, Panel, ProblemText } from './notification-ui';
import { Time } from './time';
import { Button } from './ui/button';
import { Input } from './ui/input';
import { Select } from './ui/select';
import { ViewerTime } from './viewer-time';

function useInvalidate() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: MEMBERS_KEY });
}

type Created = { invitationUrl: string; invitation: PendingInvitationView };

/** The one-time link, shown once after inviting, with a copy button. */
function LinkNotice({ created, onDone }: { created: Created; onDone: () => void }) {
  return (
    <div
      role="status"
      data-testid="invitation-link-notice"
      className={
        'space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 ' +
        'dark:bg-amber-950'
      }
    >
      <p className="font-medium">Invitation link for {created.invitation.email}</p>
      <div className="flex flex-wrap items-center gap-2">
        <code
          data-testid="invitation-link"
          className="min-w-0 break-all rounded bg-white px-2 py-1 font-mono text-xs dark:bg-zinc-900"
        >
          {created.invitationUrl}
        </code>
        <CopyButton value={created.invitationUrl} label="Copy the invitation link" testId="invitation-link-copy" />
      </div>
      <p>
        Send it to them yourself (Countersign sends no email). It works once, until{' '}
        <ViewerTime value={created.invitation.expiresAt} />, and is shown only now: if it gets lost, invite them again
        and the old link stops working.
      </p>
      <Button variant="secondary" data-testid="invitation-link-done" onClick={onDone}>
        I have sent it
      </Button>
    </div>
  );
}

function InviteForm() {
  const invalidate = useInvalidate();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<MemberRole>('viewer');
  const [created, setCreated] = useState<Created | null>(null);
  const invite = useMutation({
    mutationFn: async () => valueOrThrow(await inviteMember({ email, name, role })),
    onMutate: () => setCreated(null),
    onSuccess: (answer) => {
      setCreated(answer);
      setEmail('');
      setName('');
    },
    onSettled: invalidate,
  });
  return (
    <CardForm
      labelledBy="invite-heading"
      testId="invite-form"
      notice={created ? <LinkNotice created={created} onDone={() => setCreated(null)} /> : null}
      onSubmit={() => invite.mutate()}
    >
      <h3 id="invite-heading" className="font-semibold">
        Invite someone
      </h3>
      <div className="grid gap-3 sm:grid-cols-[1fr_1fr_10rem]">
        <label htmlFor="invite-email" className="block text-sm font-medium">
          Email
          <Input
            id="invite-email"
            data-testid="invite-email"
            type="email"
            required
            maxLength={254}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            className="mt-1 font-mono"
            autoComplete="off"
            placeholder="name@example.com"
          />
        </label>
        <label htmlFor="invite-name" className="block text-sm font-medium">
          Name
          <Input
            id="invite-name"
            data-testid="invite-name"
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
            className="mt-1"
            autoComplete="off"
          />
        </label>
        <label htmlFor="invite-role" className="block text-sm font-medium">
          Role
          <Select
            id="invite-role"
            data-testid="invite-role"
            value={role}
            onChange={(e) => setRole(e.target.value as MemberRole)}
            className="mt-1"
            aria-describedby="invite-role-hint"
          >
            {ROLE_ORDER.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </Select>
        </label>
      </div>
      <p id="invite-role-hint" className="text-xs text-zinc-600 dark:text-zinc-400">
        As {role === 'admin' ? 'an' : 'a'} {role}, {ROLE_ABOUT[role]}.
      </p>
      <ProblemText error={invite.error} testId="invite-error" />
      <Button variant="primary" type="submit" data-testid="invite-submit" disabled={invite.isPending}>
        {invite.isPending ? 'Creating the link…' : 'Create invitation link'}
      </Button>
    </CardForm>
  );
}

function PendingInvitation({ invitation }: { invitation: PendingInvitationView }) {
  const invalidate = useInvalidate();
  const cancel = useMutation({
    mutationFn: async () => valueOrThrow(await cancelInvitation(invitation.id)),
    onSettled: invalidate,
  });
  return (
    <li
      data-testid="invitation-pending"
      data-invitation-id={invitation.id}
      data-email={invitation.email}
      className={`flex flex-wrap items-center gap-x-4 gap-y-2 ${CARD}`}
    >
      <div className="min-w-0 flex-1">
        <p className="font-medium">
          {invitation.name} <span className="font-normal text-zinc-600 dark:text-zinc-400">· {invitation.role}</span>
        </p>
        <p className="break-all font-mono text-xs">{invitation.email}</p>
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          Link expires <Time value={invitation.expiresAt} />
        </p>
      </div>
      <Button
        variant="secondary"
        data-testid="invitation-cancel"
        aria-label={`Cancel the invitation of ${invitation.email}`}
        disabled={cancel.isPending}
        onClick={() => cancel.mutate()}
      >
        {cancel.isPending ? 'Cancelling…' : 'Cancel invitation'}
      </Button>
      <div className="basis-full empty:hidden">
        <ProblemText error={cancel.error} testId="invitation-cancel-error" />
      </div>
    </li>
  );
}

/** Settings → Members for an admin: the members with their roles, invitations, and the invite form. */
export function MembersAdmin(manage: Manage) {
  const query = useQuery({ queryKey: MEMBERS_KEY, queryFn: async () => valueOrThrow(await fetchMembers()) });
  return (
    <AdminQuery query={query} name="members" what="the members" heights={[16, 6, 12]}>
      {({ members, invitations }) => (
        <>
          <Panel title="Members" id="members-heading" testId="members-panel">
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              A new role holds from the person’s next click; removing someone ends their access here at their next
              click.
            </p>
            <MemberTable members={members} manage={manage} />
          </Panel>
          <Panel title="Invitations" id="invitations-heading" testId="invitations-panel">
            {invitations.length === 0 ? (
              <p
                data-testid="invitations-empty"
                className="rounded-lg border border-dashed border-zinc-300 p-4 text-center text-sm dark:border-zinc-700"
              >
                No pending invitations. Invite someone below: you get a link to send them, and they choose their
                password.
              </p>
            ) : (
              <ul className="space-y-2" data-testid="invitations">
                {invitations.map((invitation) => (
                  <PendingInvitation key={invitation.id} invitation={invitation} />
                ))}
              </ul>
            )}
            <InviteForm />
          </Panel>
        </>
      )}
    </AdminQuery>
  );
}
