'use client';

import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import type { ContractStatus } from '@/lib/actions/types';
import { postContractStatus } from '@/lib/client/contracts-api';
import type { ApiProblem } from '@/lib/client/operator-api';
import type { ContractStatusRequest } from '@/lib/contracts/requests';

const BUTTON = 'rounded-md border border-zinc-300 px-2 py-1 text-xs hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800';
const DANGER = 'rounded-md border border-red-300 px-2 py-1 text-xs text-red-800 hover:bg-red-50 disabled:opacity-50 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950';

type Move = { label: string; request: ContractStatusRequest; testId: string; danger?: boolean };

/** What an admin may do with a version in each status (lib/contracts/rollout.ts has the state machine). */
function movesFor(status: ContractStatus, version: number): Move[] {
  const promote: Move = { label: `Promote v${version} to current`, request: { status: 'current' }, testId: 'promote' };
  const retire: Move = { label: `Retire v${version}…`, request: { status: 'retired' }, testId: 'retire', danger: true };
  switch (status) {
    case 'shadow':
      return [promote, { label: 'Accept as supported', request: { status: 'supported' }, testId: 'accept' }, retire];
    case 'supported':
      return [promote, retire];
    case 'retired':
      return [{ label: 'Put in shadow', request: { status: 'shadow' }, testId: 'shadow' }, { label: 'Reinstate as supported', request: { status: 'supported' }, testId: 'reinstate' }];
    default:
      return [];
  }
}

/** A date-time-local value (the viewer's zone) as an ISO instant. */
const toIso = (local: string) => new Date(local).toISOString();

/**
 * An admin's controls for one contract version: promote, accept, reinstate, retire (confirmed
 * once more), and a supported version's sunset. Each posts to the admin API and reloads the page.
 */
export function ContractRolloutControls({ action, version, status, sunsetAt }: { action: string; version: number; status: ContractStatus; sunsetAt: string | null }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [sunset, setSunset] = useState('');

  const send = (request: ContractStatusRequest) =>
    startTransition(async () => {
      const result = await postContractStatus(action, version, request);
      setConfirming(false);
      if (!result.ok) {
        setProblem(result.problem);
        return;
      }
      setProblem(null);
      router.refresh();
    });

  if (status === 'current') {
    return <p className="text-xs text-zinc-500">Decides every request. To replace it, promote another version; this one then stays supported.</p>;
  }
  return (
    <div className="space-y-2" data-testid={`rollout-${action}-v${version}`}>
      <div className="flex flex-wrap gap-2">
        {movesFor(status, version).map((move) =>
          move.danger ? (
            confirming ? (
              <button key={move.testId} type="button" disabled={pending} className={DANGER} data-testid="confirm-retire" onClick={() => send(move.request)}>
                Confirm: refuse every v{version} request
              </button>
            ) : (
              <button key={move.testId} type="button" disabled={pending} className={DANGER} data-testid={move.testId} onClick={() => setConfirming(true)}>
                {move.label}
              </button>
            )
          ) : (
            <button key={move.testId} type="button" disabled={pending} className={BUTTON} data-testid={move.testId} onClick={() => send(move.request)}>
              {move.label}
            </button>
          ),
        )}
      </div>
      {status === 'supported' ? (
        <form
          className="flex flex-wrap items-center gap-2 text-xs"
          onSubmit={(event) => {
            event.preventDefault();
            if (sunset) send({ status: 'supported', sunsetAt: toIso(sunset) });
          }}
        >
          <label htmlFor={`sunset-${action}-${version}`}>Sunset (your time zone)</label>
          <input
            id={`sunset-${action}-${version}`}
            type="datetime-local"
            required
            value={sunset}
            onChange={(event) => setSunset(event.target.value)}
            data-testid="sunset-input"
            className="rounded border border-zinc-300 bg-transparent px-1 py-0.5 dark:border-zinc-700"
          />
          <button type="submit" disabled={pending} className={BUTTON} data-testid="set-sunset">Set sunset</button>
          {sunsetAt ? (
            <button type="button" disabled={pending} className={BUTTON} data-testid="clear-sunset" onClick={() => send({ status: 'supported', sunsetAt: null })}>
              Clear sunset
            </button>
          ) : null}
        </form>
      ) : null}
      {problem ? (
        <p role="alert" data-testid="rollout-error" className="text-xs text-red-800 dark:text-red-300">
          {problem.message} <span className="font-mono">({problem.code})</span>
        </p>
      ) : null}
    </div>
  );
}
