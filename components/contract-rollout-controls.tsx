'use client';

import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import type { ContractStatus } from '@/lib/actions/types';
import { postContractStatus } from '@/lib/client/contracts-api';
import type { ApiProblem } from '@/lib/client/operator-api';
import type { ContractStatusRequest } from '@/lib/contracts/requests';
import { Button } from './ui/button';
import { Input } from './ui/input';

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
      return [
        { label: 'Put in shadow', request: { status: 'shadow' }, testId: 'shadow' },
        { label: 'Reinstate as supported', request: { status: 'supported' }, testId: 'reinstate' },
      ];
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
export function ContractRolloutControls({
  action,
  version,
  status,
  sunsetAt,
}: {
  action: string;
  version: number;
  status: ContractStatus;
  sunsetAt: string | null;
}) {
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
    return (
      <p className="text-xs text-zinc-500">
        Decides every request. To replace it, promote another version; this one then stays supported.
      </p>
    );
  }
  return (
    <div className="space-y-2" data-testid={`rollout-${action}-v${version}`}>
      <div className="flex flex-wrap gap-2">
        {movesFor(status, version).map((move) =>
          move.danger ? (
            confirming ? (
              <Button
                variant="danger"
                size="sm"
                key={move.testId}
                disabled={pending}
                data-testid="confirm-retire"
                onClick={() => send(move.request)}
              >
                Confirm: refuse every v{version} request
              </Button>
            ) : (
              <Button
                variant="danger"
                size="sm"
                key={move.testId}
                disabled={pending}
                data-testid={move.testId}
                onClick={() => setConfirming(true)}
              >
                {move.label}
              </Button>
            )
          ) : (
            <Button
              variant="secondary"
              size="sm"
              key={move.testId}
              disabled={pending}
              data-testid={move.testId}
              onClick={() => send(move.request)}
            >
              {move.label}
            </Button>
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
          <Input
            compact
            id={`sunset-${action}-${version}`}
            type="datetime-local"
            required
            value={sunset}
            onChange={(event) => setSunset(event.target.value)}
            data-testid="sunset-input"
          />
          <Button variant="secondary" size="sm" type="submit" disabled={pending} data-testid="set-sunset">
            Set sunset
          </Button>
          {sunsetAt ? (
            <Button
              variant="secondary"
              size="sm"
              disabled={pending}
              data-testid="clear-sunset"
              onClick={() => send({ status: 'supported', sunsetAt: null })}
            >
              Clear sunset
            </Button>
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
