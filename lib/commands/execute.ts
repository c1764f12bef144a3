import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '@/db';
import { commands, executions, type Proposal, proposals } from '@/db/schema';
import type { ActionModule, Resolution } from '@/lib/actions/types';
import { executionsPaused } from '@/lib/commands/executions-pause';
import { Refusal } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { adjustClaims, openClaimsBesides } from '@/lib/gates/claims';
import { type KeyAuthorityLapse, keyAuthority } from '@/lib/gates/key-authority';
import { meaningGate } from '@/lib/gates/meaning';
import { rulesGate } from '@/lib/gates/rules';
import { newId } from '@/lib/ids';
import { quorumShortfall } from '@/lib/quorum/quorum';
import { commandKeys, type VerificationKeys } from '@/lib/signing/keys';
import {
  type SystemsClient,
  SystemsUnavailableError,
  type SystemsWriteClient,
  systemsClient,
  systemsWriteClient,
  type WriteResponse,
} from '@/lib/systems/client';
import { SPAN } from '@/lib/telemetry/attributes';
import { countExecution } from '@/lib/telemetry/metrics';
import { type SpanNote, withSpan } from '@/lib/telemetry/trace';
import { commandIssuer } from './mint';
import { receiptHash } from './receipt-hash';
import { type VerifiedCommand, verifyCommand } from './verify';

export type ExecutionStatus = 'succeeded' | 'failed' | 'outcome_unknown';

/** The executor's answer (200) for any recorded outcome, first time or replay. */
export type ExecutionAnswer = {
  status: ExecutionStatus;
  commandId: string;
  proposalId: string;
  receipt?: Record<string, unknown>;
  errorCode?: string;
  reason?: string;
};

/** The adapter's deadline for the one write (docs/design.md §7). */
export const WRITE_DEADLINE_MS = 3_000;
/** When reconciliation first asks about an unknown outcome. */
export const RECHECK_AFTER_MS = 30_000;

const EXECUTOR_ACTOR = (scope: string) => ({ type: 'system' as const, id: `executor:${scope}` });

export type ExecuteOptions = {
  /** The executor's scope, from its URL (`payments`, `inventory`). */
  scope: string;
  /** The compact JWS, as posted. */
  jws: string;
  /** Public keys by kid (default: the configured key set). */
  keys?: VerificationKeys;
  issuer?: string;
  /** Reads for the precondition re-check (default: the configured systems client). */
  systems?: SystemsClient;
  /** The scope's write client (default: systemsWriteClient(scope)). */
  writeClient?: SystemsWriteClient;
  deadlineMs?: number;
  clock?: () => Date;
};

type Outcome = { status: ExecutionStatus; receipt?: Record<string, unknown>; errorCode?: string; reason?: string };

const isCommandRefusal = (error: unknown): error is Refusal => error instanceof Refusal && error.kind === 'command';

/** Logs a refusal: the code only (never the token or its claims). */
function logRefusal(scope: string, code: string): void {
  console.warn(JSON.stringify({ event: 'command.refused', scope, code }));
}

/**
 * `POST /api/executor/<scope>`: verify (a Refusal of kind `command` records nothing), consume
 * the command exactly once, re-check preconditions against live state, make the one write with a
 * deadline, validate the receipt against the output schema and the request, and record the outcome.
 * A replay answers the recorded outcome and causes no second effect.
 */
export async function executeCommand(db: Database, options: ExecuteOptions): Promise<ExecutionAnswer> {
  return withSpan(SPAN.execution, {}, async (span) => {
    try {
      return await executeTraced(db, options, span);
    } catch (error) {
      // A refusal's code (expired, replayed_jti, executions_paused, …), never the token or its claims.
      span.note({ outcome: isCommandRefusal(error) ? error.code : 'error' });
      throw error;
    }
  });
}

async function executeTraced(db: Database, options: ExecuteOptions, span: SpanNote): Promise<ExecutionAnswer> {
  const clock = options.clock ?? (() => new Date());
  const { scope } = options;
  let verified: VerifiedCommand;
  try {
    verified = await verifyCommand(db, options.jws, {
      scope,
      keys: options.keys ?? (await commandKeys()).verification,
      issuer: options.issuer ?? commandIssuer(),
      now: clock(),
    });
  } catch (error) {
    if (isCommandRefusal(error)) logRefusal(scope, error.code);
    throw error;
  }
  const { claims, action } = verified;
  const base = { commandId: claims.jti, proposalId: claims.sub };
  span.note({ proposalId: claims.sub, action: action.name });

  const start = await db.transaction(async (tx) => {
    const now = clock();
    // The proposal row first (as decide locks it), so a late reject and the start serialize.
    const [proposal] = await tx.select().from(proposals).where(eq(proposals.id, claims.sub)).for('update').limit(1);
    if (!proposal) throw new Error('verified command without its proposal');
    span.note({ tenantId: proposal.tenantId });
    // The tenant's emergency stop: the command is deferred, not consumed (a 503 dispatch retries).
    if (await executionsPaused(tx, proposal.tenantId)) {
      logRefusal(scope, 'executions_paused');
      throw new Refusal(
        'executions_paused',
        "The tenant's executions are paused; the command was not consumed and runs after the resume.",
      );
    }
    const consumed = await tx
      .update(commands)
      .set({ consumedAt: now })
      .where(and(eq(commands.id, claims.jti), isNull(commands.consumedAt)))
      .returning({ id: commands.id });
    if (consumed.length === 0) return { kind: 'replay' as const, proposal };

    // Every consumed command gets its executions row: either it ends here (deny won meanwhile) or it runs.
    const refusal: Outcome | undefined =
      proposal.status === 'approved'
        ? await quorumLapse(tx, proposal)
        : {
            status: 'failed',
            errorCode: 'proposal_not_approved',
            reason: `The proposal is ${proposal.status.replace('_', ' ')}, not approved; nothing was done.`,
          };
    const executionId = newId('exe');
    await tx.insert(executions).values({
      id: executionId,
      tenantId: proposal.tenantId,
      proposalId: proposal.id,
      commandId: claims.jti,
      status: refusal?.status ?? 'executing',
      attempts: 1,
      errorCode: refusal?.errorCode ?? null,
      createdAt: now,
      updatedAt: now,
    });
    if (refusal) {
      // An approved proposal refused here ends failed; a rejected one (deny won) keeps its status.
      if (proposal.status === 'approved') {
        await tx
          .update(proposals)
          .set({ status: 'failed', statusReason: refusal.reason ?? null, updatedAt: now })
          .where(eq(proposals.id, proposal.id));
        await adjustClaims(tx, proposal, proposal.status, 'failed');
      }
      await recordOutcomeEvents(tx, proposal, scope, claims.jti, executionId, refusal, now);
      return { kind: 'done' as const, outcome: refusal };
    }

    await tx.update(proposals).set({ status: 'executing', updatedAt: now }).where(eq(proposals.id, proposal.id));
    await adjustClaims(tx, proposal, proposal.status, 'executing');
    await recordStateChange(tx, {
      tenantId: proposal.tenantId,
      type: 'execution.started',
      actor: EXECUTOR_ACTOR(scope),
      proposalId: proposal.id,
      payloadHash: proposal.payloadHash,
      reasonCode: 'started',
      contractVersion: proposal.contractVersion,
      data: { commandId: claims.jti, executionId, scope },
      occurredAt: now,
      outbox: false,
    });
    return { kind: 'started' as const, proposal, executionId };
  });

  if (start.kind === 'replay') {
    span.note({ outcome: 'replayed' });
    return { ...base, ...(await recordedOutcome(db, claims.jti, claims.sub)) };
  }
  if (start.kind === 'done') {
    span.note({ outcome: start.outcome.status });
    countExecution(start.outcome.status, action.name);
    return { ...base, ...start.outcome };
  }

  const args = claims.args;
  const command = { id: claims.jti, jws: options.jws };
  const outcome = await run(db, action, start.proposal, args, claims.idempotencyKey, command, options);
  await db.transaction(async (tx) => {
    const now = clock();
    const updated = await tx
      .update(executions)
      .set({
        status: outcome.status,
        receipt: outcome.receipt ?? null,
        errorCode: outcome.errorCode ?? null,
        nextCheckAt: outcome.status === 'outcome_unknown' ? new Date(now.getTime() + RECHECK_AFTER_MS) : null,
        updatedAt: now,
      })
      .where(and(eq(executions.id, start.executionId), eq(executions.status, 'executing')))
      .returning({ id: executions.id });
    if (updated.length === 0) return;
    const ended = await tx
      .update(proposals)
      .set({ status: outcome.status, statusReason: outcome.reason ?? null, updatedAt: now })
      .where(and(eq(proposals.id, start.proposal.id), eq(proposals.status, 'executing')))
      .returning({ id: proposals.id });
    if (ended.length > 0) await adjustClaims(tx, start.proposal, 'executing', outcome.status);
    await recordOutcomeEvents(tx, start.proposal, scope, claims.jti, start.executionId, outcome, now);
  });
  span.note({ outcome: outcome.status });
  countExecution(outcome.status, action.name);
  return { ...base, ...outcome };
}

/**
 * Preconditions against live state (the intake's Meaning, Authority and rules gates), then the one write, then the
 * receipt check.
 */
async function run(
  db: Database,
  action: ActionModule,
  proposal: Proposal,
  args: Record<string, unknown>,
  idempotencyKey: string,
  command: { id: string; jws: string },
  options: ExecuteOptions,
): Promise<Outcome> {
  const { scope } = options;
  const subject = { tenantId: proposal.tenantId, action, args, contractVersion: proposal.contractVersion };
  let resolution: Resolution | undefined;
  try {
    // Evidence is not read again: it is a snapshot kept with the proposal.
    const meant = await meaningGate(subject, { systems: options.systems ?? systemsClient(), evidenceRefs: [] });
    resolution = meant.ok ? meant.value.resolution : undefined;
  } catch (error) {
    if (error instanceof SystemsUnavailableError) {
      return {
        status: 'failed',
        errorCode: 'systems_unavailable',
        reason: 'The system of record could not be read to re-check preconditions; nothing was written.',
      };
    }
    throw error;
  }
  if (!resolution || (proposal.resourceKey && resolution.resourceKey !== proposal.resourceKey)) {
    return {
      status: 'failed',
      errorCode: 'precondition_failed',
      reason: 'The resource can no longer be found in the system of record; nothing was written.',
    };
  }
  // Authority as it stands now: a revoked key or a removed grant stops what has not run yet.
  const authority = await keyAuthority(db, proposal, subject, resolution);
  if (authority.lapse) return { status: 'failed', errorCode: 'not_authorized', reason: lapseReason(authority.lapse) };
  const ruled = await rulesGate(
    { ...subject, agent: authority.agent },
    { resolution, open: await openClaimsBesides(db, proposal) },
  );
  if (!ruled.ok)
    return {
      status: 'failed',
      errorCode: 'precondition_failed',
      reason: `${ruled.refusal.code}: ${ruled.refusal.message}`,
    };

  let response: WriteResponse;
  try {
    const { writeClient } = options;
    response = await action.execute({
      client: () => writeClient ?? systemsWriteClient(scope),
      args,
      facts: resolution.facts,
      idempotencyKey,
      command,
      signal: AbortSignal.timeout(options.deadlineMs ?? WRITE_DEADLINE_MS),
    });
  } catch (error) {
    if (error instanceof SystemsUnavailableError) {
      return { status: 'failed', errorCode: 'systems_unavailable', reason: `${error.reason}; nothing was written.` };
    }
    return {
      status: 'outcome_unknown',
      errorCode: 'executor_error',
      reason: 'The write failed unexpectedly; reconciliation will ask the system of record.',
    };
  }
  switch (response.kind) {
    case 'refused':
      return { status: 'failed', errorCode: response.code, reason: response.message };
    case 'unknown':
      return { status: 'outcome_unknown', errorCode: response.reason, reason: unknownReason(response.reason) };
    case 'answered': {
      const check = action.validateReceipt(response.body, args, resolution.facts, idempotencyKey);
      if (!check.ok)
        return {
          status: 'outcome_unknown',
          errorCode: 'receipt_mismatch',
          reason: `${check.reason}; reconciliation will ask the system of record.`,
        };
      return { status: 'succeeded', receipt: check.receipt };
    }
  }
}

/**
 * The people's quorum as it stands now (docs/design.md §6): an approver demoted or removed after the
 * approval no longer counts, so the command does nothing.
 */
async function quorumLapse(tx: Database, proposal: Proposal): Promise<Outcome | undefined> {
  const short = await quorumShortfall(tx, proposal);
  if (!short) return undefined;
  return {
    status: 'failed',
    errorCode: 'quorum_lapsed',
    reason:
      `Only ${short.standing} of the ${short.required} approvers the rule needs still hold ` +
      `the ${proposal.routing.role} role; nothing was written.`,
  };
}

function lapseReason(lapse: KeyAuthorityLapse): string {
  return lapse.code === 'agent_key_revoked'
    ? 'The agent key that proposed this was revoked before it ran; nothing was written.'
    : "The agent key's grants no longer cover this action or resource; nothing was written.";
}

function unknownReason(reason: 'timeout' | 'unreachable' | 'system_error' | 'malformed_response'): string {
  const what = {
    timeout: 'The system of record did not answer before the deadline',
    unreachable: 'The system of record could not be reached mid-write',
    system_error: 'The system of record failed with a server error',
    malformed_response: 'The system of record answered with something that is not a receipt',
  }[reason];
  return (
    `${what}; the write may or may not have happened. Reconciliation will ask by idempotency key before ` +
    `anything is retried.`
  );
}

/** The execution.<status> audit event and outbox row of an outcome. */
async function recordOutcomeEvents(
  tx: Database,
  proposal: Proposal,
  scope: string,
  commandId: string,
  executionId: string,
  outcome: Outcome,
  now: Date,
) {
  await recordStateChange(tx, {
    tenantId: proposal.tenantId,
    type: `execution.${outcome.status}`,
    actor: EXECUTOR_ACTOR(scope),
    proposalId: proposal.id,
    payloadHash: proposal.payloadHash,
    reasonCode: outcome.errorCode ?? outcome.status,
    contractVersion: proposal.contractVersion,
    // The receipt's hash: the evidence bundle's receipt is checked against it.
    data: { commandId, executionId, scope, receiptHash: receiptHash(outcome.receipt) },
    occurredAt: now,
    outbox: {
      topic: `execution.${outcome.status}`,
      body: {
        proposalId: proposal.id,
        commandId,
        executionId,
        status: outcome.status,
        errorCode: outcome.errorCode ?? null,
      },
    },
  });
}

/** A replay's answer: what was recorded for this command (still running reads as unknown). */
async function recordedOutcome(
  db: Database,
  commandId: string,
  proposalId: string,
): Promise<Omit<ExecutionAnswer, 'commandId' | 'proposalId'>> {
  const [row] = await db.select().from(executions).where(eq(executions.commandId, commandId)).limit(1);
  const [proposal] = await db
    .select({ statusReason: proposals.statusReason })
    .from(proposals)
    .where(eq(proposals.id, proposalId))
    .limit(1);
  if (!row || row.status === 'executing') {
    return {
      status: 'outcome_unknown',
      errorCode: 'in_progress',
      reason: 'This command is being executed; its outcome is not recorded yet.',
    };
  }
  const status =
    (['succeeded', 'failed', 'outcome_unknown'] as const).find((value) => value === row.status) ?? 'outcome_unknown';
  return {
    status,
    ...(row.receipt ? { receipt: row.receipt as Record<string, unknown> } : {}),
    ...(row.errorCode ? { errorCode: row.errorCode } : {}),
    ...(proposal?.statusReason ? { reason: proposal.statusReason } : {}),
  };
}
