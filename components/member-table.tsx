'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { changeMemberRole, type MemberRole, type MemberView, removeMember } from '@/lib/client/members-api';
import { valueOrThrow } from '@/lib/client/operator-api';
import { MemberPasskeys } from './member-passkeys';
import { ROLE_ORDER } from './member-roles';
import { ProblemText } from './notification-ui';
import { Time } from './time';
import { Button } from './ui/button';
import { Select } from './ui/select';
import { CARD_ROW, CardCell, Table } from './ui/table';

export const MEMBERS_KEY = ['admin', 'members'] as const;

/** What an admin may do on the table: who they are (their own row says "you") and the tenant's name. */
export type Manage = { currentUserId: string; tenantName: string };

function RoleControl({ member, lastAdmin, manage }: { member: MemberView; lastAdmin: boolean; manage: Manage }) {
  const client = useQueryClient();
  const router = useRouter();
  const [role, setRole] = useState<MemberRole>(member.role);
  const change = useMutation({
    mutationFn: async () => valueOrThrow(await changeMemberRole(member.userId, role)),
    onSuccess: () => {
      // Giving up one's own admin role changes this very page: render it again from the server.
      if (member.userId === manage.currentUserId) router.refresh();
    },
    onSettled: () => client.invalidateQueries({ queryKey: MEMBERS_KEY }),
  });
  const id = `member-role-${member.userId}`;
  return (
    <div className="space-y-1">
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={id} className="sr-only">
          Role of {member.name}
        </label>
        <Select
          compact
          id={id}
          data-testid="member-role"
          value={role}
          disabled={lastAdmin || change.isPending}
          aria-describedby={lastAdmin ? `member-last-admin-${member.userId}` : undefined}
          onChange={(e) => {
            change.reset();
            setRole(e.target.value as MemberRole);
          }}
        >
          {ROLE_ORDER.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </Select>
        {role !== member.role ? (
          <>
            <Button
              variant="primary"
              data-testid="member-role-save"
              disabled={change.isPending}
              onClick={() => change.mutate()}
            >
              {change.isPending ? 'Saving…' : `Make ${role}`}
            </Button>
            <Button variant="secondary" data-testid="member-role-undo" onClick={() => setRole(member.role)}>
              Undo
            </Button>
          </>
        ) : null}
      </div>
      {change.isSuccess && role === member.role ? (
        <p role="status" data-testid="member-role-saved" className="text-xs text-zinc-600 dark:text-zinc-400">
          Saved; it holds from their next click.
        </p>
      ) : null}
      <ProblemText error={change.error} testId="member-role-error" />
    </div>
  );
}

function RemoveControl({ member, lastAdmin, manage }: { member: MemberView; lastAdmin: boolean; manage: Manage }) {
  const client = useQueryClient();
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const keep = useRef<HTMLButtonElement>(null);
  const remove = useMutation({
    mutationFn: async () => valueOrThrow(await removeMember(member.userId)),
    onSuccess: () => {
      if (member.userId === manage.currentUserId) router.refresh();
    },
    onSettled: () => client.invalidateQueries({ queryKey: MEMBERS_KEY }),
  });
  useEffect(() => {
    if (confirming) keep.current?.focus();
  }, [confirming]);
  if (!confirming) {
    return (
      <Button
        variant="secondary"
        data-testid="member-remove"
        disabled={lastAdmin}
        aria-describedby={lastAdmin ? `member-last-admin-${member.userId}` : undefined}
        onClick={() => setConfirming(true)}
      >
        Remove…
      </Button>
    );
  }
  return (
    <div role="group" aria-label={`Remove ${member.name}`} data-testid="member-remove-confirm" className="space-y-2">
      <p className="text-sm">
        Remove {member.name} from {manage.tenantName}?{' '}
        {member.userId === manage.currentUserId
          ? 'You lose access at once.'
          : 'They lose access to it at their next click.'}
      </p>
      <div className="flex flex-wrap gap-2">
        <Button
          variant="destructive"
          data-testid="member-remove-yes"
          disabled={remove.isPending}
          onClick={() => remove.mutate()}
        >
          {remove.isPending ? 'Removing…' : 'Remove'}
        </Button>
        <Button
          variant="secondary"
          ref={keep}
          type="button"
          data-testid="member-remove-no"
          onClick={() => setConfirming(false)}
        >
          Keep
        </Button>
      </div>
      <ProblemText error={remove.error} testId="member-remove-error" />
    </div>
  );
}

/**
 * The tenant's members: read-only for everyone, and with `manage` (an admin) a role select and a
 * remove button per person. The last admin's controls are disabled, with the reason beside them.
 */
export function MemberTable({ members, manage }: { members: MemberView[]; manage?: Manage }) {
  const admins = members.filter((m) => m.role === 'admin').length;
  const head = manage ? ['Name', 'Email', 'Role', 'Joined', ''] : ['Name', 'Email', 'Role', 'Joined'];
  return (
    <Table head={head} testId="members" cards>
      {members.map((member) => {
        const lastAdmin = member.role === 'admin' && admins <= 1;
        return (
          <tr
            key={member.userId}
            data-testid="member"
            data-user-id={member.userId}
            data-email={member.email}
            data-role={member.role}
            className={CARD_ROW}
          >
            <CardCell label="Name">
              <span data-testid="member-name">{member.name}</span>
              {manage?.currentUserId === member.userId ? (
                <span className="ml-2 rounded bg-zinc-100 px-1.5 py-0.5 text-xs dark:bg-zinc-800">you</span>
              ) : null}
            </CardCell>
            <CardCell label="Email" mono>
              <span className="break-all">{member.email}</span>
            </CardCell>
            <CardCell label="Role">
              {manage ? (
                <RoleControl key={member.role} member={member} lastAdmin={lastAdmin} manage={manage} />
              ) : (
                <span data-testid="member-role-text">{member.role}</span>
              )}
              {manage && lastAdmin ? (
                <p
                  id={`member-last-admin-${member.userId}`}
                  data-testid="member-last-admin"
                  className="mt-1 max-w-64 text-xs text-zinc-600 dark:text-zinc-400"
                >
                  The only admin of {manage.tenantName}: make someone else admin before changing this role or removing
                  them.
                </p>
              ) : null}
            </CardCell>
            <CardCell label="Joined">
              <Time value={member.joinedAt} />
            </CardCell>
            {manage ? (
              <CardCell label="Access">
                <RemoveControl member={member} lastAdmin={lastAdmin} manage={manage} />
                <MemberPasskeys userId={member.userId} name={member.name} />
              </CardCell>
            ) : null}
          </tr>
        );
      })}
    </Table>
  );
}
