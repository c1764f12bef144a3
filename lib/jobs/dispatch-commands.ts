import { and, asc, eq, isNull, lte } from 'drizzle-orm';
import type { Database } from '@/db';
import { commands, executions, outbox, proposals } from '@/db/schema';
import { tenantRunning } from '@/lib/commands/executions-pause';
import { mintCommand } from '@/lib/commands/mint';
import type { OutboxTopic } from '@/lib/events/registry';
import { quorumShortfall } from '@/lib/quorum/quorum';
import { SPAN } from '@/lib/telemetry/attributes';
import { traceHeaders, withSpan } from '@/lib/telemetry/trace';

/** The outbox topic A's minting writes beside each command, in the same transaction. */
export const COMMAND_MINTED = 'command.minted' satisfies OutboxTopic;

/** A claimed row is leased for this long: another dispatcher leaves it alone meanwhile. */
const LEASE_MS = 60_000;
/** How long one POST to the executor may take (the executor calls its adapter with its own deadline). */
const POST_TIMEOUT_MS = 30_000;
/** After this many failed deliveries the row is dead (visible, never retried again). */
export const MAX_DISPATCH_ATTEMPTS = 10;
const MAX_BACKOFF_MS = 5 * 60_000;

export type DispatchOptions = {
  /** `APP_URL` or `http://127.0.0.1:<PORT>`: where `/api/executor/<scope>` answers. */
  executorBaseUrl: string;
  now?: Date;
  limit?: number;
  fetch?: typeof fetch;
};

export type DispatchResult = { claimed: number; delivered: number; dead: number; retrying: number };

/** The wait before the next delivery try after `attempts` failed ones: 2^attempts s, at most 5 min. */
export function dispatchBackoffMs(attempts: number): number {
  return Math.min(2 ** attempts * 1_000, MAX_BACKOFF_MS);
}

/**
 * Replaces an expired command of a still-approved proposal that never ran with a newly minted one
 * (and its own outbox row); the old outbox row ends as `superseded`. A proposal that is no longer
 * approved (rejected meanwhile: deny wins) gets no new command.
 */
async function renewCommand(tx: Database, oldCommandId: string, outboxId: string, now: Date): Promise<void> {
  const [old] = await tx.select().from(commands).where(eq(commands.id, oldCommandId));
  if (!old) return;
  const proposalId = old.proposalId;
  const [proposal] = await tx.select().from(proposals).where(eq(proposals.id, proposalId)).for('update');
  const [execution] = await tx
    .select({ id: executions.id })
    .from(executions)
    .where(eq(executions.proposalId, proposalId))
    .limit(1);
  const approved = proposal?.status === 'approved' && !execution;
  // An approver demoted or removed since the approval: no new command (docs/design.md §6).
  const lapsed = approved && proposal !== undefined && (await quorumShortfall(tx, proposal)) !== undefined;
  const renewable = approved && !lapsed;
  await tx
    .update(outbox)
    .set({ deadAt: now, lastError: renewable ? 'superseded' : lapsed ? 'quorum_lapsed' : 'proposal_not_approved' })
    .where(eq(outbox.id, outboxId));
  if (!renewable || !proposal) return;
  await tx.delete(commands).where(and(eq(commands.id, oldCommandId), isNull(commands.consumedAt)));
  await mintCommand(tx, proposal, now);
}

type Claim = {
  outboxId: string;
  attempts: number;
  commandId: string;
  scope: string;
  jws: string | undefined;
  tenantId: string;
  proposalId: string | undefined;
};

type Outcome = { kind: 'delivered' } | { kind: 'refused'; code: string } | { kind: 'retry'; error: string };

/** A short, safe code for `lastError` (never a message: it could carry values). */
function safeCode(value: unknown, fallback: string): string {
  return typeof value === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(value) ? value : fallback;
}

async function post(fetcher: typeof fetch, baseUrl: string, claim: Claim & { jws: string }): Promise<Outcome> {
  let response: Response;
  try {
    response = await fetcher(new URL(`/api/executor/${encodeURIComponent(claim.scope)}`, baseUrl), {
      method: 'POST',
      // traceparent (when telemetry is on): the execution's span continues the dispatch's trace.
      headers: { 'content-type': 'application/jose', accept: 'application/json', ...traceHeaders() },
      body: claim.jws,
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    });
  } catch (error) {
    return {
      kind: 'retry',
      error: error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'unreachable',
    };
  }
  const body = (await response.json().catch(() => undefined)) as
    | { execution?: { commandId?: unknown }; error?: { kind?: unknown; code?: unknown } }
    | undefined;
  if (response.status === 200 && body?.execution && typeof body.execution === 'object') return { kind: 'delivered' };
  if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
    return { kind: 'refused', code: safeCode(body?.error?.code, `http_${response.status}`) };
  }
  return { kind: 'retry', error: response.status === 200 ? 'unexpected_answer' : `http_${response.status}` };
}

/** Commands one dispatch run claims at most. */
export const DISPATCH_BATCH = 20;

/**
 * Delivers minted commands to their scoped executor (docs/design.md §7, §10). Claims undelivered, live,
 * due `command.minted` outbox rows with FOR UPDATE SKIP LOCKED in a short transaction that bumps
 * `attempts` and leases the row (pushes `availableAt` forward); POSTs outside any transaction; then
 * marks the row delivered (200 with an execution: the executor recorded an outcome — a replay
 * answers the same), dead on a refusal (4xx, `lastError` = its code), or retried with backoff
 * (network error, timeout, 5xx), dead after MAX_DISPATCH_ATTEMPTS. A crash between commit and
 * delivery loses nothing: the row is still there and comes due when its lease ends. Re-sending is
 * safe because the executor consumes each jti once. A paused tenant's rows wait untouched
 * (lib/commands/executions-pause.ts). The claimed rows (at most `limit`) are POSTed at
 * once, not one after another.
 */
export async function dispatchCommands(db: Database, options: DispatchOptions): Promise<DispatchResult> {
  const now = options.now ?? new Date();
  const limit = options.limit ?? DISPATCH_BATCH;
  const fetcher = options.fetch ?? fetch;
  const result: DispatchResult = { claimed: 0, delivered: 0, dead: 0, retrying: 0 };

  const claims = await db.transaction(async (tx) => {
    const rows = await tx
      .select({ id: outbox.id, attempts: outbox.attempts, body: outbox.body, tenantId: outbox.tenantId })
      .from(outbox)
      .where(
        and(
          eq(outbox.topic, COMMAND_MINTED),
          isNull(outbox.deliveredAt),
          isNull(outbox.deadAt),
          lte(outbox.availableAt, now),
          tenantRunning(outbox.tenantId),
        ),
      )
      .orderBy(asc(outbox.availableAt), asc(outbox.id))
      .limit(limit)
      .for('update', { skipLocked: true });
    const lease = new Date(now.getTime() + LEASE_MS);
    const claimed: Claim[] = [];
    for (const row of rows) {
      const attempts = row.attempts + 1;
      await tx.update(outbox).set({ attempts, availableAt: lease }).where(eq(outbox.id, row.id));
      const body = row.body as { commandId?: unknown; scope?: unknown };
      const commandId = typeof body.commandId === 'string' ? body.commandId : '';
      const [command] = commandId
        ? await tx
            .select({ scope: commands.scope, jws: commands.jws, proposalId: commands.proposalId })
            .from(commands)
            .where(eq(commands.id, commandId))
        : [];
      claimed.push({
        outboxId: row.id,
        attempts,
        commandId,
        scope: command?.scope ?? String(body.scope ?? ''),
        jws: command?.jws,
        tenantId: row.tenantId,
        proposalId: command?.proposalId,
      });
    }
    return claimed;
  });
  result.claimed = claims.length;

  // Each claim is its own row and its own command: delivered side by side, so one slow executor
  // call does not hold back the approvals claimed with it. All settle before any failure is thrown,
  // so none is still running when the job reports back.
  const settled = await Promise.allSettled(
    claims.map((claim) =>
      withSpan(SPAN.dispatch, { tenantId: claim.tenantId, proposalId: claim.proposalId }, async (span) => {
        const outcome: Outcome = claim.jws
          ? await post(fetcher, options.executorBaseUrl, { ...claim, jws: claim.jws })
          : { kind: 'refused', code: 'unknown_command' };
        // The answer's own time, so a slow POST cannot make the backoff already past.
        const at = options.now ? now : new Date();
        if (outcome.kind === 'refused' && outcome.code === 'expired') {
          // Nobody delivered it in time (every worker was down): the approval still stands, so a fresh
          // command replaces the stale one — same payload, hash and idempotency key — and goes next.
          await db.transaction((tx) => renewCommand(tx, claim.commandId, claim.outboxId, at));
          span.note({ outcome: 'renewed' });
          result.dead++;
        } else if (outcome.kind === 'delivered') {
          await db
            .update(outbox)
            .set({ deliveredAt: at, lastError: null })
            .where(and(eq(outbox.id, claim.outboxId), isNull(outbox.deliveredAt)));
          span.note({ outcome: 'delivered' });
          result.delivered++;
        } else if (outcome.kind === 'refused' || claim.attempts >= MAX_DISPATCH_ATTEMPTS) {
          const lastError = outcome.kind === 'refused' ? outcome.code : outcome.error;
          await db
            .update(outbox)
            .set({ deadAt: at, lastError })
            .where(and(eq(outbox.id, claim.outboxId), isNull(outbox.deliveredAt)));
          span.note({ outcome: 'dead' });
          result.dead++;
        } else {
          await db
            .update(outbox)
            .set({ availableAt: new Date(at.getTime() + dispatchBackoffMs(claim.attempts)), lastError: outcome.error })
            .where(and(eq(outbox.id, claim.outboxId), isNull(outbox.deliveredAt)));
          span.note({ outcome: 'retrying' });
          result.retrying++;
        }
      }),
    ),
  );
  const failure = settled.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return result;
}
