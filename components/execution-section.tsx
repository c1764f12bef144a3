import { PayloadBlock, PayloadText } from '@/components/payload-text';
import type { ExecutionState } from '@/lib/proposals/execution-state';
import type { ProposalStatus } from '@/lib/records';
import { CopyButton } from './copy-button';
import { ExecutionRefresher, NextCheckIn } from './execution-live';
import { ViewerClock } from './viewer-time';

const CHECK_WORDS: Record<string, string> = {
  confirmed: 'confirmed — receipt validated',
  invalid_receipt: 'a record exists but does not match',
  not_found: 'not committed yet',
  not_committed: 'never committed',
  unavailable: 'system of record did not answer',
};

function receiptId(receipt: unknown): string | undefined {
  if (receipt && typeof receipt === 'object' && typeof (receipt as { id?: unknown }).id === 'string')
    return (receipt as { id: string }).id;
  return undefined;
}

const IN_FLIGHT: ProposalStatus[] = ['approved', 'executing', 'outcome_unknown'];
/** A proposal that ended without its (minted) command ever running. */
const ENDED_UNRUN: ProposalStatus[] = ['rejected', 'expired', 'stale', 'cancelled'];
/** Execution statuses after which nothing more happens. */
const FINISHED = ['succeeded', 'failed'];

/**
 * The EXECUTION section of the proposal page (UI.md): what the executor did, in words first —
 * "Executed — refund re_123 (receipt validated)", "Outcome unknown — checking with payments
 * (attempt 3, next in 40 s)" (violet, a spinner, never "done"), "Failed — <reason>" — then, for
 * operators, the signed command (id, claims, copyable JWS) and the history of reconciliation checks.
 */
export function ExecutionSection({
  status,
  receiptNoun,
  statusReason,
  state,
  renderedAt,
}: {
  status: ProposalStatus;
  /** What a receipt is called, in the action's words ("refund"): ProposalWording.receiptNoun. */
  receiptNoun: string;
  statusReason: string | null;
  state: ExecutionState;
  renderedAt: string;
}) {
  const { execution, command } = state;
  if (!command && !IN_FLIGHT.includes(status)) return null;
  const scope = command?.scope ?? 'the system of record';
  const executionStatus = execution?.status ?? (status === 'outcome_unknown' ? 'outcome_unknown' : undefined);
  const id = receiptId(execution?.receipt);
  const checks = execution?.checks ?? [];

  let line: React.ReactNode;
  if (executionStatus === 'succeeded') {
    line = (
      <p
        data-testid="execution-outcome"
        data-status="succeeded"
        className="font-medium text-green-800 dark:text-green-300"
      >
        Executed — {receiptNoun}{' '}
        <span className="font-mono" data-testid="execution-receipt-id">
          {id ?? '(no id)'}
        </span>{' '}
        (receipt validated)
      </p>
    );
  } else if (executionStatus === 'outcome_unknown') {
    line = (
      <p
        data-testid="execution-outcome"
        data-status="outcome_unknown"
        className="flex flex-wrap items-center gap-2 font-medium text-violet-800 dark:text-violet-300"
      >
        <span
          aria-hidden
          className={
            'inline-block h-3.5 w-3.5 animate-spin rounded-full border-2 border-violet-300 border-t-violet-700 ' +
            'dark:border-violet-800 dark:border-t-violet-300'
          }
        />
        <span>
          Outcome unknown — checking with {scope} (attempt {Math.max(1, execution?.attempts ?? 1)}
          {execution?.nextCheckAt ? (
            <>
              , <NextCheckIn at={execution.nextCheckAt} renderedAt={renderedAt} />
            </>
          ) : null}
          )
        </span>
      </p>
    );
  } else if (ENDED_UNRUN.includes(status)) {
    // Rejected (deny wins until the command starts), or otherwise ended before its command ran.
    line = (
      <p data-testid="execution-outcome" data-status="not_executed" className="text-zinc-600 dark:text-zinc-400">
        Not executed — the proposal was {status.replace('_', ' ')} before its command ran; nothing was written.
      </p>
    );
  } else if (executionStatus === 'failed' || status === 'failed') {
    const reason =
      statusReason ??
      (execution?.errorCode ? execution.errorCode.replace(/_/g, ' ') : 'the executor refused the command');
    line = (
      <p data-testid="execution-outcome" data-status="failed" className="font-medium text-red-800 dark:text-red-300">
        Failed — <PayloadText value={reason} mono={false} />
        {execution?.errorCode ? <span className="ml-2 font-mono text-xs">({execution.errorCode})</span> : null}
      </p>
    );
  } else if (command) {
    line = (
      <p
        data-testid="execution-outcome"
        data-status="executing"
        className="font-medium text-blue-800 dark:text-blue-300"
      >
        {execution
          ? `Executing — the ${scope} executor is running the command…`
          : `Sending the signed command to the ${scope} executor…`}
      </p>
    );
  } else {
    line = (
      <p data-testid="execution-outcome" data-status="waiting" className="text-zinc-600 dark:text-zinc-400">
        Approved; the signed command is being minted.
      </p>
    );
  }
  // Only a command that can still run has an expiry worth reading; a used one says when it was used.
  const commandTime = !command ? null : command.consumedAt ? (
    <>
      {' '}
      · used <ViewerClock value={command.consumedAt} />
    </>
  ) : IN_FLIGHT.includes(status) && !FINISHED.includes(executionStatus ?? '') ? (
    <>
      {' '}
      · expires <ViewerClock value={command.expiresAt} />
    </>
  ) : (
    <> · never used</>
  );

  return (
    <section
      aria-labelledby="execution"
      data-testid="execution"
      className="space-y-3 rounded-lg border border-zinc-200 bg-white p-4 text-sm dark:border-zinc-800 dark:bg-zinc-900"
    >
      <h2 id="execution" className="font-semibold">
        Execution
      </h2>
      {/* The proposal and its execution are read one after the other, so a render may catch the
          execution finished and the proposal not yet (both change in one transaction): refresh
          until the proposal itself has left flight. */}
      {IN_FLIGHT.includes(status) ? <ExecutionRefresher /> : null}
      {line}
      {execution?.receipt ? (
        <details data-testid="execution-receipt">
          <summary className="cursor-pointer font-medium">Receipt</summary>
          <PayloadBlock value={JSON.stringify(execution.receipt, null, 2)} />
        </details>
      ) : null}
      {checks.length > 0 ? (
        <div>
          <h3 className="font-medium">Checks with {scope}</h3>
          <ol className="mt-1 space-y-1 text-zinc-600 dark:text-zinc-400" data-testid="execution-checks">
            {checks.map((check, index) => (
              <li key={`${check.at}-${index}`} data-testid="execution-check" data-outcome={check.outcome}>
                <ViewerClock value={check.at} seconds /> · attempt {check.attempt ?? index + 1} ·{' '}
                {CHECK_WORDS[check.outcome] ?? check.outcome}
                {check.reason ? (
                  <>
                    {' '}
                    — <PayloadText value={check.reason} mono={false} />
                  </>
                ) : null}
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      {command ? (
        <details data-testid="execution-command">
          <summary className="cursor-pointer font-medium">
            Signed command{' '}
            <span className="font-mono" data-testid="execution-command-id">
              {command.id}
            </span>
            {commandTime}
          </summary>
          <div className="mt-2 space-y-2">
            <p className="text-xs text-zinc-500">Claims (decoded; the executor verifies the signature)</p>
            <PayloadBlock value={JSON.stringify(command.claims, null, 2)} testId="execution-command-claims" />
            <div className="flex items-center gap-2">
              <p className="text-xs text-zinc-500">Compact JWS</p>
              <CopyButton
                value={command.jws}
                label="Copy the signed command (compact JWS)"
                testId="execution-jws-copy"
              />
            </div>
            <pre
              className={
                'overflow-x-auto whitespace-pre-wrap break-all rounded bg-zinc-100 p-3 font-mono text-xs ' +
                'dark:bg-zinc-800'
              }
              data-testid="execution-jws"
            >
              <code>{command.jws}</code>
            </pre>
          </div>
        </details>
      ) : null}
    </section>
  );
}
