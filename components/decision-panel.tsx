'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { REJECT_PRESETS, type DecisionRequest } from '@/lib/api/requests';
import { OperatorApiError, postDecision, postExtension, valueOrThrow } from '@/lib/client/operator-api';
import { PayloadText } from './payload-text';

type Props = {
  proposalId: string;
  payloadHash: string;
  approveLabel: string;
  /** False for an initiator: the agent acts for them, or they edited this proposal or a revision before it. */
  canApprove: boolean;
};

/** Refusals after which the proposal itself changed (or was changed by someone else): show it. */
const PROPOSAL_MOVED = new Set(['stale', 'expired', 'already_decided']);

export function DecisionPanel({ proposalId, payloadHash, approveLabel, canApprove }: Props) {
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const mutation = useMutation({
    mutationFn: async (request: DecisionRequest) => valueOrThrow(await postDecision(proposalId, request)),
    onSuccess: () => router.refresh(),
    onError: (error) => {
      if (error instanceof OperatorApiError && PROPOSAL_MOVED.has(error.problem.code)) router.refresh();
    },
  });
  const short = `${payloadHash.slice(0, 15)}…${payloadHash.slice(-4)}`;

  return (
    <div className="space-y-3" data-testid="decision-panel">
      {mutation.error ? (
        <p data-testid="decision-error" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
          {mutation.error.message}
        </p>
      ) : null}
      {!confirming && !rejecting ? (
        <div className="flex flex-wrap items-center gap-2">
          {canApprove ? (
            <button type="button" data-testid="approve" onClick={() => setConfirming(true)} className="rounded-md bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800">
              <PayloadText value={approveLabel} mono={false} flagNonAscii={false} />
            </button>
          ) : (
            <p data-testid="approve-barred" className="text-sm text-zinc-600 dark:text-zinc-400">
              You initiated or edited this proposal (or a revision before it), so someone else must approve it. You may still reject it.
            </p>
          )}
          <button type="button" data-testid="reject" onClick={() => setRejecting(true)} className="rounded-md border border-zinc-300 px-4 py-2 font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
            Reject…
          </button>
        </div>
      ) : null}
      {confirming ? (
        <div role="group" aria-label="Confirm approval" className="rounded-md border border-blue-300 bg-blue-50 p-3 dark:border-blue-800 dark:bg-blue-950">
          <p className="text-sm">
            You are signing <code className="font-mono" title={payloadHash}>{short}</code> — the exact payload shown above.
          </p>
          <div className="mt-2 flex gap-2">
            <button type="button" autoFocus data-testid="confirm-approve" disabled={mutation.isPending} onClick={() => mutation.mutate({ decision: 'approve', payloadHash })} className="rounded-md bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800 disabled:opacity-60">
              {mutation.isPending ? 'Approving…' : 'Confirm approval'}
            </button>
            <button type="button" data-testid="cancel-approve" onClick={() => setConfirming(false)} className="rounded-md px-3 py-2 text-sm underline">Cancel</button>
          </div>
        </div>
      ) : null}
      {rejecting ? (
        <form
          aria-label="Reject"
          className="space-y-2 rounded-md border border-zinc-300 p-3 dark:border-zinc-700"
          onSubmit={(event) => {
            event.preventDefault();
            mutation.mutate({ decision: 'reject', payloadHash, reason });
          }}
        >
          <div className="flex flex-wrap gap-2">
            {REJECT_PRESETS.map((preset) => (
              <button key={preset} type="button" data-testid="reject-preset" data-preset={preset} onClick={() => setReason(preset)} className="rounded-full border border-zinc-300 px-2 py-0.5 text-xs dark:border-zinc-700">{preset}</button>
            ))}
          </div>
          <label className="block text-sm">
            Reason (required)
            <textarea data-testid="reject-reason" required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} className="mt-1 block w-full rounded-md border border-zinc-300 bg-transparent p-2 dark:border-zinc-700" rows={2} />
          </label>
          <div className="flex gap-2">
            <button type="submit" data-testid="confirm-reject" disabled={mutation.isPending || reason.length === 0} className="rounded-md bg-red-700 px-4 py-2 font-medium text-white hover:bg-red-800 disabled:opacity-60">Reject proposal</button>
            <button type="button" data-testid="cancel-reject" onClick={() => setRejecting(false)} className="rounded-md px-3 py-2 text-sm underline">Cancel</button>
          </div>
        </form>
      ) : null}
      {canApprove ? <p className="text-xs text-zinc-500">Approving signs <code className="font-mono" title={payloadHash}>{short}</code> — the exact payload above.</p> : null}
    </div>
  );
}

/** "Extend by 24 h": once per proposal, for whoever may decide it. */
export function ExtendButton({ proposalId, hours }: { proposalId: string; hours: number }) {
  const router = useRouter();
  const mutation = useMutation({ mutationFn: async () => valueOrThrow(await postExtension(proposalId)), onSuccess: () => router.refresh() });
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <button
        type="button"
        data-testid="extend"
        disabled={mutation.isPending || mutation.isSuccess}
        onClick={() => mutation.mutate()}
        className="rounded-md border border-zinc-300 px-3 py-1 text-sm font-medium hover:bg-zinc-100 disabled:opacity-60 dark:border-zinc-700 dark:hover:bg-zinc-800"
      >
        {mutation.isPending ? 'Extending…' : `Extend by ${hours} h`}
      </button>
      {mutation.error ? (
        <span data-testid="extend-error" role="alert" className="text-sm text-red-800 dark:text-red-300">{mutation.error.message}</span>
      ) : null}
    </span>
  );
}
