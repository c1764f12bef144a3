'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useRef, useState } from 'react';
import { OperatorApiError, valueOrThrow } from '@/lib/client/operator-api';
import { putPasskeySettings } from '@/lib/client/passkeys-api';
import { isSessionEnded, markSessionEnded } from '@/lib/client/session';
import type { TenantPasskeys } from '@/lib/passkeys/tenant-setting';
import { CARD, ProblemText } from './notification-ui';
import { Button } from './ui/button';
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogTitle } from './ui/dialog';

const WARNING =
  'rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 ' +
  'dark:bg-amber-950 dark:text-amber-200';

/** "2 of 5 members have a passkey". */
const whoHasOne = ({ members, membersWithPasskey }: TenantPasskeys) =>
  `${membersWithPasskey} of ${members} ${members === 1 ? 'member' : 'members'} ` +
  `${membersWithPasskey === 1 ? 'has' : 'have'} a passkey`;

function NoPasskeyOfYours({ tenantName, testId }: { tenantName: string; testId: string }) {
  return (
    <p data-testid={testId} className={WARNING}>
      You have no passkey yet: while this is on, you cannot approve in {tenantName} until you add one above.
    </p>
  );
}

/**
 * Settings → Security, for an admin of the tenant in view: whether every approval there must be
 * signed with a passkey. Turning it on asks first (it ends every standing grant of the tenant);
 * turning it off does not. An admin without a passkey may turn it on, warned that they then
 * cannot approve until they add one.
 */
export function TenantPasskeysSetting({ tenantName, setting }: { tenantName: string; setting: TenantPasskeys }) {
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const box = useRef<HTMLInputElement>(null);
  const save = useMutation({
    mutationFn: async (requirePasskeys: boolean) => valueOrThrow(await putPasskeySettings(requirePasskeys)),
    onSuccess: () => {
      setConfirming(false);
      router.refresh();
    },
    onError: (error) => {
      if (error instanceof OperatorApiError && isSessionEnded(error.problem)) markSessionEnded();
    },
  });
  // The answer holds until the refreshed page brings the same value from the server.
  const required = save.data?.requirePasskeys ?? setting.required;

  return (
    <section aria-labelledby="tenant-passkeys-heading" className={`${CARD} space-y-3`} data-testid="tenant-passkeys">
      <h2 id="tenant-passkeys-heading" className="font-semibold">
        Passkeys in {tenantName}
      </h2>
      <label htmlFor="tenant-passkeys-required" className="flex items-start gap-2 text-sm font-medium">
        <input
          ref={box}
          id="tenant-passkeys-required"
          type="checkbox"
          data-testid="tenant-passkeys-required"
          className="mt-0.5 h-4 w-4"
          checked={required}
          disabled={save.isPending}
          aria-describedby="tenant-passkeys-about"
          onChange={(event) => {
            save.reset();
            if (event.target.checked) setConfirming(true);
            else save.mutate(false);
          }}
        />
        Every approval must be signed with a passkey
      </label>
      <div id="tenant-passkeys-about" className="space-y-1 text-sm text-zinc-600 dark:text-zinc-400">
        <p data-testid="tenant-passkeys-count">{whoHasOne(setting)}.</p>
        <p>
          Turning it on ends every standing grant of {tenantName}: what they covered waits for a person again. Rules
          that ask for a passkey apply either way.
        </p>
      </div>
      {setting.youHaveOne ? null : <NoPasskeyOfYours tenantName={tenantName} testId="tenant-passkeys-yours" />}
      {confirming ? null : <ProblemText error={save.error} testId="tenant-passkeys-error" />}
      <Dialog
        open={confirming}
        onOpenChange={(open) => {
          setConfirming(open);
          if (!open) save.reset();
        }}
      >
        <DialogContent
          data-testid="tenant-passkeys-confirm"
          // The dialog has no trigger of Radix's: focus goes back to the checkbox that opened it.
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            box.current?.focus();
          }}
        >
          <DialogTitle className="text-lg">Require a passkey on every approval in {tenantName}?</DialogTitle>
          <DialogDescription className="mt-1">
            Every standing grant of {tenantName} ends now. {whoHasOne(setting)}; the others cannot approve until they
            add one.
          </DialogDescription>
          <div className="mt-3 space-y-3">
            {setting.youHaveOne ? null : (
              <NoPasskeyOfYours tenantName={tenantName} testId="tenant-passkeys-confirm-yours" />
            )}
            <ProblemText error={save.error} testId="tenant-passkeys-confirm-error" />
            <div className="flex flex-wrap justify-end gap-2">
              <DialogClose asChild>
                <Button variant="secondary" size="lg" data-testid="tenant-passkeys-cancel">
                  Cancel
                </Button>
              </DialogClose>
              <Button
                variant="primary"
                size="lg"
                data-testid="tenant-passkeys-turn-on"
                disabled={save.isPending}
                onClick={() => save.mutate(true)}
              >
                {save.isPending ? 'Turning on…' : 'Require passkeys'}
              </Button>
            </div>
          </div>
        </DialogContent>
      </Dialog>
    </section>
  );
}
