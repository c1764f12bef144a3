'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { postReproposeRequest, valueOrThrow } from '@/lib/client/operator-api';
import { Button } from './ui/button';
import { Textarea } from './ui/textarea';
import { ViewerClock } from './viewer-time';

type Props = {
  proposalId: string;
  /** When someone already asked (ISO time), or null. */
  requestedAt: string | null;
  /** An approver or admin of the tenant, and the proposal is stale or changed since proposed. */
  canAsk: boolean;
};

/**
 * "Ask the agent to re-propose": for a stale proposal, or a pending one whose resource changed.
 * The agent reads the request on its proposal and proposes again with a new requestId; the page
 * then shows that it was asked, and when.
 */
export function ReproposeButton({ proposalId, requestedAt, canAsk }: Props) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const mutation = useMutation({
    mutationFn: async () =>
      valueOrThrow(await postReproposeRequest(proposalId, note.trim() ? { note: note.trim() } : {})),
    onSuccess: () => router.refresh(),
  });
  const asked = requestedAt ?? mutation.data?.reproposal.requestedAt ?? null;

  if (asked) {
    return (
      <p data-testid="repropose-requested" role="status" className="mt-3 text-sm text-zinc-700 dark:text-zinc-300">
        The agent was asked to propose this again (<ViewerClock value={asked} />
        ); its new proposal will arrive in the queue.
      </p>
    );
  }
  if (!canAsk) return null;
  return (
    <div className="mt-3 space-y-2" data-testid="repropose">
      {!open ? (
        <Button variant="secondary" data-testid="repropose-open" onClick={() => setOpen(true)}>
          Ask the agent to re-propose…
        </Button>
      ) : (
        <form
          aria-label="Ask the agent to re-propose"
          className="space-y-2 rounded-md border border-zinc-300 p-3 dark:border-zinc-700"
          onSubmit={(event) => {
            event.preventDefault();
            mutation.mutate();
          }}
        >
          <label htmlFor="repropose-note" className="block text-sm font-medium">
            A note for the agent (optional)
          </label>
          <Textarea
            id="repropose-note"
            data-testid="repropose-note"
            value={note}
            maxLength={500}
            rows={2}
            onChange={(event) => setNote(event.target.value)}
          />
          <div className="flex flex-wrap gap-2">
            <Button variant="primary" type="submit" data-testid="repropose-send" disabled={mutation.isPending}>
              {mutation.isPending ? 'Asking…' : 'Ask the agent to re-propose'}
            </Button>
            <Button variant="link" className="px-3 py-1.5 text-sm" onClick={() => setOpen(false)}>
              Cancel
            </Button>
          </div>
        </form>
      )}
      {mutation.error ? (
        <p data-testid="repropose-error" role="alert" className="text-sm text-red-800 dark:text-red-300">
          {mutation.error.message}
        </p>
      ) : null}
    </div>
  );
}
