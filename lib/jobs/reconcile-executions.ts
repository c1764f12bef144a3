import { and, asc, eq, lte } from 'drizzle-orm';
import type { Database } from '@/db';
import type { Facts } from '@/db/schema';
import { commands, executions, type NormalizedPayload, proposals } from '@/db/schema';
import { receiptHash } from '@/lib/commands/receipt-hash';
import { tenantAction } from '@/lib/definitions/catalog';
import { recordStateChange } from '@/lib/events/record';
import type { AuditEventType } from '@/lib/events/registry';
import { adjustClaims } from '@/lib/gates/claims';
import { SystemsUnavailableError, type SystemsWriteClient, systemsWriteClient } from '@/lib/systems/client';
import { countExecution } from '@/lib/telemetry/metrics';

/** Who acts when reconciliation settles an outcome nobody could see at the time. */
export const RECONCILIATION_ACTOR = { type: 'system' as const, id: 'reconciliation' };

/** The audit event of every check (time, outcome, reason): the history operators see. */
export const EXECUTION_CHECKED = 'execution.checked' satisfies AuditEventType;

/** A claimed execution is leased for this long while its system of record is asked. */
const LEASE_MS = 60_000;
const FIRST_BACKOFF_MS = 30_000;
const MAX_BACKOFF_MS = 60 * 60_000;
/** The executor's clock skew: a command is executable until its `exp` plus this. */
export const COMMAND_SKEW_MS = 30_000;
/**
 * An execution still `executing` this long after it started has lost the process that ran it (a
 * crash between starting and recording): the executor's one write has a 3 s deadline, so it can
 * only be this old if nobody will ever record its outcome. Its outcome is then unknown.
 */
export const INTERRUPTED_AFTER_MS = 60_000;

export type CheckOutcome = 'confirmed' | 'invalid_receipt' | 'not_found' | 'not_committed' | 'unavailable';

export type ReconcileOptions = {
  now?: Date;
  limit?: number;
  /** The write client per scope (default: systemsWriteClient from the settings). */
  systems?: (scope: string) => SystemsWriteClient;
};

export type ReconcileResult = { checked: number; succeeded: number; failed: number; pending: number };

/** The wait before the next check after `attempts` checks: 30 s × 2^attempts, at most 1 h. */
export function reconcileBackoffMs(attempts: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** attempts, MAX_BACKOFF_MS);
}

type Claim = {
  executionId: string;
  proposalId: string;
  tenantId: string;
  attempts: number;
  commandId: string;
  action: string;
  payload: NormalizedPayload;
  facts: Facts;
  scope: string;
  idempotencyKey: string;
  commandExpiresAt: Date;
};

type Verdict =
  | { outcome: 'confirmed'; receipt: unknown }
  | { outcome: 'invalid_receipt' | 'not_found' | 'not_committed' | 'unavailable'; reason: string };

/** A short reason for people: no payload, no record values. */
function shortReason(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

async function ask(
  db: Database,
  claim: Claim,
  systems: (scope: string) => SystemsWriteClient,
  now: Date,
): Promise<Verdict> {
  const action = await tenantAction(db, claim.tenantId, claim.action);
  if (!action) return { outcome: 'unavailable', reason: `no action module named ${claim.action}` };
  let found: Awaited<ReturnType<typeof action.lookupReceipt>>;
  try {
    const { idempotencyKey, commandId } = claim;
    found = await action.lookupReceipt({ client: () => systems(claim.scope), idempotencyKey, commandId });
  } catch (error) {
    if (error instanceof SystemsUnavailableError)
      return { outcome: 'unavailable', reason: `the system of record did not answer (${error.reason})` };
    throw error;
  }
  if (found.found) {
    const { args } = claim.payload;
    const validated = action.validateReceipt(found.receipt, args, claim.facts, claim.idempotencyKey);
    if (validated.ok) return { outcome: 'confirmed', receipt: validated.receipt };
    return {
      outcome: 'invalid_receipt',
      reason: shortReason(
        `a record exists under the idempotency key but does not match the command: ${validated.reason}`,
      ),
    };
  }
  // Only once the command can no longer run can "not there" mean "never will be".
  if (now.getTime() > claim.commandExpiresAt.getTime() + COMMAND_SKEW_MS) {
    return {
      outcome: 'not_committed',
      reason: 'nothing was committed under the idempotency key, and the command can no longer execute',
    };
  }
  return { outcome: 'not_found', reason: 'nothing committed yet; the command could still land until it expires' };
}

/**
 * Settles executions whose outcome is unknown (docs/design.md §7) by asking the system of record by the
 * command's idempotency key — it never retries the write. Claims due `outcome_unknown` executions
 * with FOR UPDATE SKIP LOCKED in a short transaction and leases them (nextCheckAt pushed forward),
 * asks outside any transaction, then records the check in one transaction with the proposal row:
 * - found and validated → `succeeded` (receipt stored; proposal `succeeded`; audit and outbox);
 * - found but not valid → stays `outcome_unknown` with the reason (never `succeeded` unvalidated);
 * - not found once the command is past its lifetime plus skew → `failed` with `not_committed`;
 * - otherwise (not found yet, system unavailable) → checked again after 30 s × 2^attempts (≤ 1 h).
 * Every check is an `execution.checked` audit event (outcome as reason code, attempt and reason).
 * First, executions a crash left `executing` for INTERRUPTED_AFTER_MS become `outcome_unknown`, due now.
 */
export async function reconcileExecutions(db: Database, options: ReconcileOptions = {}): Promise<ReconcileResult> {
  const now = options.now ?? new Date();
  const limit = options.limit ?? 20;
  const systems = options.systems ?? systemsWriteClient;
  const result: ReconcileResult = { checked: 0, succeeded: 0, failed: 0, pending: 0 };
  await markInterrupted(db, now, limit);

  const claims = await db.transaction(async (tx) => {
    const rows = await tx
      .select({
        executionId: executions.id,
        proposalId: executions.proposalId,
        tenantId: executions.tenantId,
        attempts: executions.attempts,
        commandId: executions.commandId,
      })
      .from(executions)
      .where(and(eq(executions.status, 'outcome_unknown'), lte(executions.nextCheckAt, now)))
      .orderBy(asc(executions.nextCheckAt), asc(executions.id))
      .limit(limit)
      .for('update', { skipLocked: true });
    const lease = new Date(now.getTime() + LEASE_MS);
    const claimed: Claim[] = [];
    for (const row of rows) {
      await tx.update(executions).set({ nextCheckAt: lease }).where(eq(executions.id, row.executionId));
      const [joined] = await tx
        .select({
          action: proposals.action,
          payload: proposals.payload,
          facts: proposals.facts,
          scope: commands.scope,
          idempotencyKey: commands.idempotencyKey,
          commandExpiresAt: commands.expiresAt,
        })
        .from(commands)
        .innerJoin(proposals, eq(proposals.id, commands.proposalId))
        .where(eq(commands.id, row.commandId));
      if (joined) claimed.push({ ...row, ...joined });
    }
    return claimed;
  });

  for (const claim of claims) {
    const verdict = await ask(db, claim, systems, now);
    const at = options.now ? now : new Date();
    const settled = await record(db, claim, verdict, at);
    if (!settled) continue;
    result.checked++;
    // An unknown outcome settled: counted with the executor's (countersign.executions).
    if (verdict.outcome === 'confirmed') {
      result.succeeded++;
      countExecution('succeeded', claim.action);
    } else if (verdict.outcome === 'not_committed') {
      result.failed++;
      countExecution('failed', claim.action);
    } else result.pending++;
  }
  return result;
}

/** Records one check; answers false when the execution was settled meanwhile (nothing written). */
async function record(db: Database, claim: Claim, verdict: Verdict, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    // The proposal first, as decisions and the executor lock it: one lock order everywhere.
    const [proposal] = await tx.select().from(proposals).where(eq(proposals.id, claim.proposalId)).for('update');
    const [execution] = await tx.select().from(executions).where(eq(executions.id, claim.executionId)).for('update');
    if (!proposal || !execution || execution.status !== 'outcome_unknown') return false;
    const attempts = execution.attempts + 1;
    const final =
      verdict.outcome === 'confirmed' ? 'succeeded' : verdict.outcome === 'not_committed' ? 'failed' : undefined;
    const reason = verdict.outcome === 'confirmed' ? null : verdict.reason;

    await recordStateChange(tx, {
      tenantId: claim.tenantId,
      type: EXECUTION_CHECKED,
      actor: RECONCILIATION_ACTOR,
      proposalId: claim.proposalId,
      payloadHash: proposal.payloadHash,
      reasonCode: verdict.outcome,
      contractVersion: proposal.contractVersion,
      data: { commandId: execution.commandId, attempt: attempts, reason },
      occurredAt: now,
      outbox: false,
    });

    if (!final) {
      await tx
        .update(executions)
        .set({ attempts, nextCheckAt: new Date(now.getTime() + reconcileBackoffMs(attempts)), updatedAt: now })
        .where(eq(executions.id, execution.id));
      return true;
    }

    const errorCode = final === 'failed' ? 'not_committed' : null;
    const receipt = verdict.outcome === 'confirmed' ? verdict.receipt : execution.receipt;
    await tx
      .update(executions)
      .set({
        status: final,
        attempts,
        receipt,
        errorCode,
        nextCheckAt: null,
        updatedAt: now,
      })
      .where(eq(executions.id, execution.id));
    // Only an execution still waiting on its outcome moves the proposal (a later decision cannot have moved it).
    if (proposal.status === 'outcome_unknown') {
      await tx
        .update(proposals)
        .set({ status: final, statusReason: reason, updatedAt: now })
        .where(eq(proposals.id, proposal.id));
      await adjustClaims(tx, proposal, proposal.status, final);
    }
    await recordStateChange(tx, {
      tenantId: claim.tenantId,
      type: `execution.${final}`,
      actor: RECONCILIATION_ACTOR,
      proposalId: claim.proposalId,
      payloadHash: proposal.payloadHash,
      reasonCode: final === 'succeeded' ? 'reconciled' : 'not_committed',
      contractVersion: proposal.contractVersion,
      data: { commandId: execution.commandId, attempt: attempts, receiptHash: receiptHash(receipt) },
      occurredAt: now,
      outbox: {
        topic: `execution.${final}`,
        body: {
          proposalId: claim.proposalId,
          commandId: execution.commandId,
          status: final,
          ...(errorCode ? { errorCode } : {}),
        },
      },
    });
    return true;
  });
}

/**
 * Executions left `executing` by a crash become `outcome_unknown`, due a check now: the write may
 * or may not have happened, and only the system of record can say. The executor's own late answer,
 * should it still come, changes nothing (it only updates an execution that is still `executing`).
 */
async function markInterrupted(db: Database, now: Date, limit: number): Promise<void> {
  const stale = await db
    .select({ id: executions.id, proposalId: executions.proposalId })
    .from(executions)
    .where(
      and(
        eq(executions.status, 'executing'),
        lte(executions.updatedAt, new Date(now.getTime() - INTERRUPTED_AFTER_MS)),
      ),
    )
    .orderBy(asc(executions.updatedAt))
    .limit(limit);
  for (const candidate of stale) {
    await db.transaction(async (tx) => {
      // The proposal first, as decisions and the executor lock it: one lock order everywhere.
      const [proposal] = await tx.select().from(proposals).where(eq(proposals.id, candidate.proposalId)).for('update');
      const [execution] = await tx.select().from(executions).where(eq(executions.id, candidate.id)).for('update');
      if (!proposal || !execution || execution.status !== 'executing') return;
      await tx
        .update(executions)
        .set({ status: 'outcome_unknown', errorCode: 'interrupted', nextCheckAt: now, updatedAt: now })
        .where(eq(executions.id, execution.id));
      if (proposal.status === 'executing') {
        await tx
          .update(proposals)
          .set({
            status: 'outcome_unknown',
            statusReason:
              'The execution was interrupted before its outcome was recorded; reconciliation will ask the system ' +
              'of record.',
            updatedAt: now,
          })
          .where(eq(proposals.id, proposal.id));
        await adjustClaims(tx, proposal, proposal.status, 'outcome_unknown');
      }
      await recordStateChange(tx, {
        tenantId: proposal.tenantId,
        type: 'execution.outcome_unknown',
        actor: RECONCILIATION_ACTOR,
        proposalId: proposal.id,
        payloadHash: proposal.payloadHash,
        reasonCode: 'interrupted',
        contractVersion: proposal.contractVersion,
        data: {
          commandId: execution.commandId,
          executionId: execution.id,
          receiptHash: receiptHash(execution.receipt),
        },
        occurredAt: now,
        outbox: {
          topic: 'execution.outcome_unknown',
          body: {
            proposalId: proposal.id,
            commandId: execution.commandId,
            executionId: execution.id,
            status: 'outcome_unknown',
            errorCode: 'interrupted',
          },
        },
      });
    });
  }
}
