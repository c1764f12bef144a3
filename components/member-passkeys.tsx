'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { valueOrThrow } from '@/lib/client/operator-api';
import { fetchMemberPasskeys, resetPasskey } from '@/lib/client/passkeys-api';
import { ProblemText } from './notification-ui';
import { PayloadText } from './payload-text';
import { Button } from './ui/button';
import { ViewerClock } from './viewer-time';

/**
 * An admin's view of one member's passkeys, opened on demand: names and dates, and a reset per
 * passkey for one that is lost (or their last where passkeys are required). Audited `admin_reset`.
 */
export function MemberPasskeys({ userId, name }: { userId: string; name: string }) {
  const [open, setOpen] = useState(false);
  const client = useQueryClient();
  const key = ['admin', 'members', userId, 'passkeys'];
  const query = useQuery({
    queryKey: key,
    queryFn: async () => valueOrThrow(await fetchMemberPasskeys(userId)).passkeys,
    enabled: open,
  });
  const reset = useMutation({
    mutationFn: async (id: string) => valueOrThrow(await resetPasskey(id)),
    onSettled: () => client.invalidateQueries({ queryKey: key }),
  });
  if (!open) {
    return (
      <Button variant="link" className="text-sm" data-testid="member-passkeys" onClick={() => setOpen(true)}>
        Passkeys…
      </Button>
    );
  }
  return (
    <div
      role="group"
      aria-label={`Passkeys of ${name}`}
      data-testid="member-passkeys-list"
      className="space-y-1 text-sm"
    >
      {query.data?.length === 0 ? <p>No passkey.</p> : null}
      {(query.data ?? []).map((passkey) => (
        <div
          key={passkey.id}
          className="flex flex-wrap items-center gap-2"
          data-testid="member-passkey"
          data-name={passkey.name}
        >
          <PayloadText value={passkey.name} mono={false} />
          <span className="text-zinc-500">
            {passkey.lastUsedAt ? (
              <>
                last used <ViewerClock value={passkey.lastUsedAt} />
              </>
            ) : (
              'never used'
            )}
          </span>
          <Button
            variant="destructive"
            data-testid="member-passkey-reset"
            disabled={reset.isPending}
            onClick={() => reset.mutate(passkey.id)}
          >
            Reset
          </Button>
        </div>
      ))}
      <ProblemText error={query.error ?? reset.error} testId="member-passkeys-error" />
    </div>
  );
}
