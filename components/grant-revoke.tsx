'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { postGrantRevocation } from '@/lib/client/grants-api';
import { OperatorApiError, valueOrThrow } from '@/lib/client/operator-api';
import { isSessionEnded, markSessionEnded } from '@/lib/client/session';
import { GRANT_REASON_MAX } from '@/lib/grants/requests';
import { Button } from './ui/button';
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogTitle, DialogTrigger } from './ui/dialog';
import { Textarea } from './ui/textarea';

/**
 * "Revoke…" on an active grant, for its granter or an admin: a confirmation with an optional
 * reason, then the list is read again. A grant that ended meanwhile (409) is shown as it now is.
 */
export function GrantRevokeButton({ grantId, covers }: { grantId: string; covers: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const mutation = useMutation({
    mutationFn: async () => valueOrThrow(await postGrantRevocation(grantId, /\S/.test(reason) ? { reason } : {})),
    onSuccess: () => {
      setOpen(false);
      router.refresh();
    },
    onError: (error) => {
      if (!(error instanceof OperatorApiError)) return;
      if (isSessionEnded(error.problem)) markSessionEnded();
      else if (error.problem.code === 'grant_ended') router.refresh();
    },
  });
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) mutation.reset();
      }}
    >
      <DialogTrigger asChild>
        <Button variant="danger" size="sm" data-testid="grant-revoke" data-grant-id={grantId}>
          Revoke…
        </Button>
      </DialogTrigger>
      <DialogContent data-testid="grant-revoke-dialog">
        <DialogTitle className="text-lg">
          Revoke grant <span className="font-mono">{grantId}</span>?
        </DialogTitle>
        <DialogDescription className="mt-1">
          From now on, {covers} wait for a person again. Proposals it already approved stay approved.
        </DialogDescription>
        <form
          className="mt-3 space-y-3"
          onSubmit={(event) => {
            event.preventDefault();
            mutation.mutate();
          }}
        >
          <label className="block text-sm">
            Reason (optional)
            <Textarea
              data-testid="grant-revoke-reason"
              rows={2}
              maxLength={GRANT_REASON_MAX}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              className="mt-1"
            />
          </label>
          <div role="alert" className="empty:hidden">
            {mutation.error ? (
              <p data-testid="grant-revoke-error" className="text-sm text-red-700 dark:text-red-300">
                {mutation.error.message}
              </p>
            ) : null}
          </div>
          <div className="flex flex-wrap justify-end gap-2">
            <DialogClose asChild>
              <Button variant="secondary" size="lg" data-testid="grant-revoke-cancel">
                Cancel
              </Button>
            </DialogClose>
            <Button
              variant="destructive"
              size="lg"
              type="submit"
              data-testid="grant-revoke-confirm"
              disabled={mutation.isPending}
            >
              {mutation.isPending ? 'Revoking…' : 'Revoke grant'}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}
