'use client';

import { type QueryClient, useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect } from 'react';
import { postRecheck, valueOrThrow } from '@/lib/client/operator-api';
import { type FreshFacts, freshAndClear, freshWords } from '@/lib/proposals/fresh-facts';
import { PayloadText } from './payload-text';
import { ViewerClock } from './viewer-time';

/** The server shares one answer per proposal for about this long: asking again sooner is pointless. */
const SHARED_FOR_MS = 5_000;
/** While a proposal stays in view its facts are read again this often. */
const AGAIN_EVERY_MS = 30_000;
/** `a` approves in one key only on a check younger than this. */
const ONE_KEY_WITHIN_MS = 45_000;

export const factsQueryKey = (proposalId: string) => ['facts', proposalId] as const;

/**
 * The proposal's facts read again when it is looked at (POST /api/v1/proposals/{id}/recheck); nothing while
 * `proposalId` is undefined.
 */
export function useFreshFacts(proposalId: string | undefined, enabled = true) {
  return useQuery({
    queryKey: factsQueryKey(proposalId ?? ''),
    queryFn: async () => valueOrThrow(await postRecheck(proposalId!)),
    enabled: enabled && proposalId !== undefined,
    staleTime: SHARED_FOR_MS,
    refetchInterval: AGAIN_EVERY_MS,
    refetchOnWindowFocus: false,
    retry: false,
  });
}

/**
 * Whether `a` may approve this proposal in one key: its facts were checked within the last 45 s
 * and the answer was clear (lib/proposals/fresh-facts.ts). No answer yet, an old one, a failed
 * request, or anything but "fresh" stops at the approve dialog.
 */
export function oneKeyReady(client: QueryClient, proposalId: string, nowMs = Date.now()): boolean {
  const state = client.getQueryState<FreshFacts>(factsQueryKey(proposalId));
  if (!state || state.status !== 'success' || state.isInvalidated) return false;
  return nowMs - state.dataUpdatedAt < ONE_KEY_WITHIN_MS && freshAndClear(state.data);
}

/**
 * What moved since it was proposed, per the freshest word: this check's answer when there is one, else the background
 * re-check's.
 */
export function changedWords(facts: FreshFacts | undefined, background: string | null): string | null {
  if (!facts || facts.state === 'unavailable' || facts.state === 'closed') return background;
  return facts.state === 'changed' ? facts.note : null;
}

const LOOK: Record<string, string> = {
  fresh: 'border-green-300 bg-green-50 text-green-950 dark:border-green-800 dark:bg-green-950 dark:text-green-100',
  changed: 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100',
  stale: 'border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-100',
  other: 'border-zinc-300 bg-zinc-50 text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100',
};

const MARK: Record<string, string> = { fresh: '✓', changed: '↻', stale: '✗', unavailable: '?', closed: '·' };

type Props = {
  /** The answer, when one arrived. */
  facts: FreshFacts | undefined;
  /** The request failed (not the system of record: our own API). */
  failed?: boolean;
  /** What is known before the answer: the facts at proposal in words (the answer repeats them). */
  atProposal?: { at: string; detail: string | null };
  testId?: string;
  /** Not pending any more: nothing is read again. */
  closed?: boolean;
};

/**
 * One "at proposal → now" view of a proposal's facts: what Meaning read at intake, what the system of
 * record says now and when it was asked, and in words what that means (nothing moved, what moved
 * while it still holds, why it no longer holds, or that the system did not answer).
 */
export function FactsView({ facts, failed = false, atProposal, testId = 'fresh-facts', closed = false }: Props) {
  const state = facts?.state ?? (closed ? 'closed' : failed ? 'unavailable' : 'checking');
  const words =
    failed && !facts
      ? 'The facts could not be checked just now (the request failed).'
      : freshWords(facts ?? (closed ? { state: 'closed', note: null } : undefined));
  const before = facts?.atProposal ?? atProposal;
  const now =
    facts?.now?.detail ??
    (state === 'checking' ? 'checking…' : state === 'closed' ? 'not read (no longer pending)' : 'unavailable');
  return (
    <section
      aria-label="Facts, at proposal and now"
      data-testid={testId}
      data-state={state}
      className="grid gap-1.5 text-sm"
    >
      <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1">
        {before ? (
          <>
            <dt className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">
              At proposal <ViewerClock value={before.at} />
            </dt>
            <dd data-testid="facts-at-proposal" className="break-words">
              <PayloadText value={before.detail ?? 'not recorded'} mono={false} />
            </dd>
          </>
        ) : null}
        <dt className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">
          Now
          {facts?.now ? (
            <>
              {' '}
              <ViewerClock value={facts.checkedAt} seconds testId="facts-checked-at" />
            </>
          ) : null}
        </dt>
        <dd data-testid="facts-now" className="break-words">
          <PayloadText value={now} mono={false} />
        </dd>
      </dl>
      <div className={`flex gap-1.5 rounded-md border px-2 py-1 ${LOOK[state] ?? LOOK.other}`}>
        <span aria-hidden="true">{MARK[state] ?? '…'}</span>
        <p
          role="status"
          data-testid={state === 'changed' ? 'drift-note' : 'facts-note'}
          className="min-w-0 break-words"
        >
          <PayloadText value={words} mono={false} />
        </p>
      </div>
    </section>
  );
}

type LiveProps = {
  proposalId: string;
  pending: boolean;
  /** Whether the page, as rendered, knows of a change since proposed (a background re-check's drift). */
  knownChanged: boolean;
  atProposal?: Props['atProposal'];
  testId?: string;
};

/**
 * FactsView for one proposal page, asking for its facts while it is pending. When the answer
 * tells the page something it does not show yet (it went stale, or moved, or moved back), the
 * page is read again so its status, checks and buttons agree with it.
 */
export function LiveFacts({ proposalId, pending, knownChanged, atProposal, testId }: LiveProps) {
  const router = useRouter();
  const query = useFreshFacts(proposalId, pending);
  const state = query.data?.state;
  const news =
    pending &&
    (state === 'stale' || state === 'closed' || (state === 'changed') !== knownChanged) &&
    state !== 'unavailable' &&
    state !== undefined;
  useEffect(() => {
    if (news) router.refresh();
  }, [news, router]);
  if (!pending) return <FactsView facts={undefined} closed atProposal={atProposal} testId={testId} />;
  return <FactsView facts={query.data} failed={query.isError} atProposal={atProposal} testId={testId} />;
}
