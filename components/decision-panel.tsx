'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useRef, useState } from 'react';
import { OperatorApiError, postDecision, postExtension, valueOrThrow } from '@/lib/client/operator-api';
import { isSessionEnded, markSessionEnded, signInAgainHref, useSessionEnded } from '@/lib/client/session';
import type { GrantOffer } from '@/lib/dashboard/grant-offer';
import { type DecisionRequest, rejectPresets } from '@/lib/decisions/requests';
import type { GrantRequest } from '@/lib/grants/requests';
import { type GrantDraft, type GrantProblems, GrantSection, grantRequestOf, NO_GRANT } from './grant-offer';
import { grantOutcomeWords, requestGrant } from './grant-outcome';
import { PasskeyHelp, PasskeySigning, type PasskeyState, signedRequest, willSign } from './passkey-sign';
import { PayloadText } from './payload-text';
import { leaveFlash } from './proposal-flash';
import { useDecisionKeys } from './proposal-keys';
import { ReasonPresets } from './reason-presets';
import { Button } from './ui/button';
import { Textarea } from './ui/textarea';
import { ViewerClock } from './viewer-time';

type Props = {
  proposalId: string;
  payloadHash: string;
  approveLabel: string;
  /** The proposal in words, for the message left on the queue when nothing else waits. */
  summary: string;
  /** False for an initiator: the agent acts for them, or they edited this proposal or a revision before it. */
  canApprove: boolean;
  /** The next proposal waiting for this person (lib/proposals/neighbours.ts), for "Approve & next". */
  nextId: string | null;
  /** The kinds of the proposal's flags: a suspicious-evidence preset leads the reject reasons when it has that flag. */
  flagKinds: string[];
  /** Whether the decision must or may be signed with the person's passkey (components/passkey-sign.tsx). */
  passkey?: PasskeyState;
  /** Where a standing grant could be made from this approval, what it would cover (lib/dashboard/grant-offer.ts). */
  grantOffer?: GrantOffer;
};

const NO_PASSKEY: PasskeyState = { required: false, registered: false };

/** Refusals after which the proposal itself changed (or was changed by someone else): show it. */
const PROPOSAL_MOVED = new Set(['stale', 'expired', 'already_decided']);

/** A refusal that means the session ended marks it for the whole page; others may need the page refreshed. */
function onRefusal(error: Error, refresh: () => void): void {
  if (!(error instanceof OperatorApiError)) return;
  if (isSessionEnded(error.problem)) markSessionEnded();
  else if (PROPOSAL_MOVED.has(error.problem.code)) refresh();
}

/** "Your session ended — Sign in again", back to this page. */
export function SessionEndedNotice() {
  const here = typeof window === 'undefined' ? '/' : `${window.location.pathname}${window.location.search}`;
  return (
    <p
      data-testid="session-ended"
      className={
        'rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 ' +
        'dark:bg-amber-950 dark:text-amber-200'
      }
    >
      Your session ended —{' '}
      <a href={signInAgainHref(here)} data-testid="sign-in-again" className="font-medium underline">
        Sign in again
      </a>
      ; you will come back to this page. Nothing was recorded.
    </p>
  );
}

/**
 * Approve (confirming the hash; "Approve & next" goes on to the next proposal waiting for this
 * person) or reject with a reason. On a phone the buttons stay at the bottom of the screen; the
 * page leaves room for them. `a`, `r` and Escape arrive from ProposalKeys.
 */
export function DecisionPanel({
  proposalId,
  payloadHash,
  approveLabel,
  summary,
  canApprove,
  nextId,
  flagKinds,
  passkey = NO_PASSKEY,
  grantOffer,
}: Props) {
  const router = useRouter();
  const sessionEnded = useSessionEnded();
  const [confirming, setConfirming] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const [signChosen, setSignChosen] = useState(true);
  const [grant, setGrant] = useState<GrantDraft>(NO_GRANT);
  const [grantProblems, setGrantProblems] = useState<GrantProblems>({});
  const rejectRef = useRef<HTMLFormElement>(null);
  const mutation = useMutation({
    // The grant is asked for only once the approval is recorded, and its refusal is an outcome, not an error: the
    // approval stands.
    mutationFn: async ({
      request,
      grantRequest,
    }: {
      request: DecisionRequest;
      andNext: boolean;
      grantRequest?: GrantRequest;
    }) => {
      valueOrThrow(
        await postDecision(proposalId, await signedRequest(proposalId, request, willSign(passkey, signChosen))),
      );
      return grantRequest ? await requestGrant(grantRequest) : undefined;
    },
    onSuccess: (granted, { andNext }) => {
      if (!andNext) return router.refresh();
      // The next page says the previous one was approved (and what became of the grant), with a way back to it.
      const back = { href: `/proposals/${encodeURIComponent(proposalId)}`, label: 'View' };
      const grantWords = granted ? ` ${grantOutcomeWords(granted)}` : '';
      if (nextId) {
        const next = `/proposals/${encodeURIComponent(nextId)}`;
        leaveFlash(`Approved: ${summary}${granted ? `. ${grantOutcomeWords(granted)}` : ''}`, next, back);
        return router.push(next);
      }
      leaveFlash(`Approved: ${summary}.${grantWords} Nothing else is waiting for you.`, '/', back);
      router.push('/');
    },
    onError: (error) => onRefusal(error, () => router.refresh()),
  });
  const short = `${payloadHash.slice(0, 15)}…${payloadHash.slice(-4)}`;
  const busy = mutation.isPending || sessionEnded;
  const approve = (andNext: boolean) => {
    const built = grantOffer && grant.on ? grantRequestOf(proposalId, grantOffer, grant) : undefined;
    setGrantProblems(built && !built.ok ? built.problems : {});
    if (built && !built.ok) return;
    mutation.mutate({ request: { decision: 'approve', payloadHash }, andNext, grantRequest: built?.request });
  };
  const startRejecting = () => {
    setConfirming(false);
    setRejecting(true);
    requestAnimationFrame(() => rejectRef.current?.scrollIntoView({ block: 'nearest' }));
  };

  useDecisionKeys((key) => {
    if (busy) return;
    if (key === 'cancel') {
      setConfirming(false);
      setRejecting(false);
    } else if (key === 'approve' && canApprove && !rejecting) setConfirming(true);
    else if (key === 'reject' && !confirming) startRejecting();
  });

  // On a phone the buttons (or the approval's confirmation) stay fixed at the bottom, above the
  // safe area; from lg up, and while writing a rejection reason, they sit in the page.
  const bar = rejecting
    ? 'space-y-3'
    : 'fixed inset-x-0 bottom-0 z-30 space-y-2 border-t border-zinc-200 bg-white/95 px-4 pt-3 ' +
      'pb-[max(0.75rem,env(safe-area-inset-bottom))] shadow-[0_-4px_12px_rgba(0,0,0,0.08)] backdrop-blur lg:static ' +
      'lg:z-auto lg:space-y-3 lg:border-0 lg:bg-transparent lg:p-0 lg:shadow-none lg:backdrop-blur-none ' +
      'dark:border-zinc-800 dark:bg-zinc-900/95 lg:dark:bg-transparent';

  return (
    <div className="space-y-3" data-testid="decision-panel">
      <div className={bar} data-testid="decision-bar">
        <div role="alert" data-testid="decision-alert" className="empty:hidden">
          {sessionEnded ? (
            <SessionEndedNotice />
          ) : mutation.error ? (
            <p
              data-testid="decision-error"
              className={
                'rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 ' +
                'dark:bg-red-950 dark:text-red-200'
              }
            >
              {mutation.error.message}
              {mutation.error instanceof OperatorApiError ? <PasskeyHelp code={mutation.error.problem.code} /> : null}
            </p>
          ) : null}
        </div>
        {!confirming && !rejecting ? (
          <div className="flex flex-wrap items-center gap-2">
            {canApprove ? (
              <Button
                variant="primary"
                size="lg"
                className="max-lg:flex-1"
                data-testid="approve"
                disabled={busy}
                onClick={() => setConfirming(true)}
              >
                <PayloadText value={approveLabel} mono={false} />
              </Button>
            ) : (
              <p data-testid="approve-barred" className="text-sm text-zinc-600 dark:text-zinc-400">
                You initiated or edited this proposal (or a revision before it), so someone else must approve it. You
                may still reject it.
              </p>
            )}
            <Button variant="secondary" size="lg" data-testid="reject" disabled={busy} onClick={startRejecting}>
              Reject…
            </Button>
          </div>
        ) : null}
        {confirming ? (
          <div
            role="group"
            aria-label="Confirm approval"
            className={
              'rounded-md border border-blue-300 bg-blue-50 p-3 max-lg:max-h-[80dvh] max-lg:overflow-y-auto ' +
              'dark:border-blue-800 dark:bg-blue-950'
            }
          >
            <p className="text-sm">
              You are signing{' '}
              <code className="font-mono" title={payloadHash}>
                {short}
              </code>{' '}
              — the exact payload shown above.
            </p>
            <PasskeySigning
              state={passkey}
              decision="approve"
              summary={summary}
              payloadHash={payloadHash}
              chosen={signChosen}
              onChoose={setSignChosen}
            />
            {grantOffer ? (
              <GrantSection
                offer={grantOffer}
                draft={grant}
                problems={grantProblems}
                disabled={busy}
                onChange={setGrant}
              />
            ) : null}
            <div className="mt-3 flex flex-wrap gap-2">
              <Button
                variant="primary"
                size="lg"
                autoFocus
                data-testid="confirm-approve-next"
                disabled={busy}
                onClick={() => approve(true)}
              >
                {mutation.isPending ? 'Approving…' : nextId ? 'Approve & next' : 'Approve & back to the queue'}
              </Button>
              <Button
                variant="secondary"
                size="lg"
                data-testid="confirm-approve"
                disabled={busy}
                onClick={() => approve(false)}
              >
                Approve and stay
              </Button>
              <Button
                variant="link"
                className="rounded-md px-3 py-2 text-sm"
                data-testid="cancel-approve"
                onClick={() => setConfirming(false)}
              >
                Cancel
              </Button>
            </div>
          </div>
        ) : null}
        {rejecting ? (
          <form
            ref={rejectRef}
            aria-label="Reject"
            className="space-y-2 rounded-md border border-zinc-300 p-3 dark:border-zinc-700"
            onSubmit={(event) => {
              event.preventDefault();
              mutation.mutate({ request: { decision: 'reject', payloadHash, reason }, andNext: false });
            }}
          >
            <ReasonPresets
              presets={rejectPresets(flagKinds)}
              reason={reason}
              onPick={setReason}
              testId={() => 'reject-preset'}
            />
            <label className="block text-sm">
              Reason (required)
              <Textarea
                autoFocus
                data-testid="reject-reason"
                required
                maxLength={500}
                value={reason}
                onChange={(e) => setReason(e.target.value)}
                className="mt-1"
                rows={2}
              />
            </label>
            <PasskeySigning
              state={passkey}
              decision="reject"
              summary={summary}
              payloadHash={payloadHash}
              chosen={signChosen}
              onChoose={setSignChosen}
            />
            <div className="flex gap-2">
              <Button
                variant="destructive"
                size="lg"
                type="submit"
                data-testid="confirm-reject"
                disabled={busy || reason.length === 0}
              >
                Reject proposal
              </Button>
              <Button
                variant="link"
                className="rounded-md px-3 py-2 text-sm"
                data-testid="cancel-reject"
                onClick={() => setRejecting(false)}
              >
                Cancel
              </Button>
            </div>
          </form>
        ) : null}
      </div>
      {canApprove ? (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          Approving signs{' '}
          <code className="font-mono" title={payloadHash}>
            {short}
          </code>{' '}
          — the exact payload above.
        </p>
      ) : null}
    </div>
  );
}

/**
 * "Extend by 24 h": once per proposal, for whoever may decide it, after a confirmation that says
 * the new expiry in the viewer's time. `announce`: say so here when the session ended (no decision
 * panel on the page).
 */
export function ExtendButton({
  proposalId,
  hours,
  expiresAt,
  announce = false,
}: {
  proposalId: string;
  hours: number;
  expiresAt: string;
  announce?: boolean;
}) {
  const router = useRouter();
  const sessionEnded = useSessionEnded();
  const [asking, setAsking] = useState(false);
  const mutation = useMutation({
    mutationFn: async () => valueOrThrow(await postExtension(proposalId)),
    onSuccess: () => router.refresh(),
    onError: (error) => onRefusal(error, () => router.refresh()),
  });
  const until = new Date(new Date(expiresAt).getTime() + hours * 3_600_000).toISOString();
  return (
    <div className="flex flex-wrap items-center gap-2">
      {asking && !mutation.isSuccess ? (
        <div
          role="group"
          aria-label="Confirm extension"
          data-testid="extend-confirm-group"
          className="flex flex-wrap items-center gap-2"
        >
          <span>
            Extend by {hours} h, to <ViewerClock value={until} testId="extend-until" />?
          </span>
          <Button
            variant="secondary"
            autoFocus
            data-testid="extend-confirm"
            disabled={mutation.isPending || sessionEnded}
            onClick={() => mutation.mutate()}
          >
            {mutation.isPending ? 'Extending…' : 'Extend'}
          </Button>
          <Button
            variant="link"
            className="px-2 py-1 text-sm"
            data-testid="extend-cancel"
            onClick={() => setAsking(false)}
          >
            Cancel
          </Button>
        </div>
      ) : (
        <Button
          variant="secondary"
          data-testid="extend"
          disabled={mutation.isSuccess || sessionEnded}
          onClick={() => setAsking(true)}
        >
          {`Extend by ${hours} h…`}
        </Button>
      )}
      <div role="alert" className="empty:hidden">
        {sessionEnded ? (
          announce ? (
            <SessionEndedNotice />
          ) : null
        ) : mutation.error ? (
          <p data-testid="extend-error" className="text-sm text-red-800 dark:text-red-300">
            {mutation.error.message}
          </p>
        ) : null}
      </div>
    </div>
  );
}
