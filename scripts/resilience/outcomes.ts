/**
 * After a workload: wait for the worker to dispatch and reconcile, then check what Countersign
 * recorded against what the systems of record hold.
 */
import type postgres from 'postgres';
import type { Database } from '@/db/client';
import { type ProposalStatus, proposalStatusEnum } from '@/db/schema';
import { idempotencyKeyFor } from '@/lib/commands/mint';
import { OPEN_STATUSES } from '@/lib/gates/claims';
import { COMMAND_SKEW_MS, reconcileExecutions } from '@/lib/jobs/reconcile-executions';
import { createSystemsWriteClient } from '@/lib/systems/client';

/** Not open (lib/gates/claims.ts) and not waiting on reconciliation: nothing will move these again. */
export const FINAL_STATUSES: readonly ProposalStatus[] = proposalStatusEnum.enumValues.filter(
  (status) => !(OPEN_STATUSES as readonly string[]).includes(status) && status !== 'outcome_unknown',
);

/** One intended operation: the proposals of its chain (the agent's, then any revisions) on one resource. */
export type Operation = { requestId: string; proposalIds: string[]; resource: Resource };
export type Resource = { kind: 'order' | 'sku'; id: string };

type Row = { id: string; status: ProposalStatus; args: Record<string, unknown> };

async function proposalRows(sql: postgres.Sql, ids: string[]): Promise<Row[]> {
  return sql<
    Row[]
  >`select id, status::text as status, payload->'args' as args from proposals where id = any(${ids}::text[])`;
}

const countByStatus = (rows: Row[]) =>
  rows.reduce<Record<string, number>>(
    (counts, row) => ({ ...counts, [row.status]: (counts[row.status] ?? 0) + 1 }),
    {},
  );

export type Settlement = {
  /** Seconds until every proposal was final or the live wait ended. */
  liveSeconds: number;
  /** Executions whose outcome was unknown at some point (reconciliation had to ask). */
  unknownAtSomePoint: number;
  /** Executions settled by the script's pass with the clock past every command's lifetime (see `settle`). */
  settledAfterExpiry: number;
  statuses: Record<string, number>;
};

/**
 * Waits for the running worker to dispatch every command and settle every unknown outcome. A write that never committed
 * (timeout before commit, 500) can only be called `failed` once its command can no longer run — 5 min plus 30 s of skew
 * — which no bounded run should wait for: so, once nothing is approved or executing, the script runs the product's own
 * reconcileExecutions with the clock set past the last command's expiry (what the worker would do
 * a few minutes later; the write that hung never committed, so nothing can land meanwhile).
 */
export async function settle(
  sql: postgres.Sql,
  db: Database,
  ids: string[],
  options: { stallMs: number; maxMs: number; systemsUrl: string; scopeCredentials: Record<string, string> },
): Promise<Settlement> {
  const began = Date.now();
  const inFlight = (rows: Row[]) =>
    rows.some((row) => row.status === 'approved' || row.status === 'executing' || row.status === 'pending_approval');
  const settledEnough = async (rows: Row[]) =>
    rows.every((row) => FINAL_STATUSES.includes(row.status)) ||
    (!inFlight(rows) && (await neverChecked(sql, ids)) === 0);
  // The wait runs while the worker makes progress (a big phase on a busy machine takes minutes) and
  // ends once nothing moved for `stallMs`, or at `maxMs` in all.
  let fewestOpen = Infinity;
  let lastProgress = Date.now();
  for (;;) {
    const rows = await proposalRows(sql, ids);
    if (await settledEnough(rows)) break;
    const open = rows.filter((row) => !FINAL_STATUSES.includes(row.status)).length;
    if (open < fewestOpen) {
      fewestOpen = open;
      lastProgress = Date.now();
    }
    if (Date.now() - lastProgress > options.stallMs || Date.now() - began > options.maxMs) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const liveSeconds = Math.round((Date.now() - began) / 1000);

  let settledAfterExpiry = 0;
  const [latest] = await sql<
    { expires: Date | null }[]
  >`select max(expires_at) as expires from commands where proposal_id = any(${ids}::text[])`;
  // Each unknown outcome's own write is over (the executor gave up on it). Not while an execution is
  // still running: the advanced clock would call it interrupted while its write may yet land.
  const executing = (await proposalRows(sql, ids)).some((row) => row.status === 'executing');
  if (latest?.expires && !executing) {
    const now = new Date(latest.expires.getTime() + COMMAND_SKEW_MS + 1_000);
    const systems = (scope: string) =>
      createSystemsWriteClient({
        baseUrl: options.systemsUrl,
        credential: options.scopeCredentials[scope] ?? '',
        scope,
      });
    for (;;) {
      const result = await reconcileExecutions(db, { now, systems, limit: 50 });
      settledAfterExpiry += result.succeeded + result.failed;
      if (result.checked === 0 || result.succeeded + result.failed === 0) break;
    }
  }
  // Reconciliation counts its checks in `attempts` (the executor's own try is 1).
  const [unknown] = await sql<{ n: number }[]>`
    select count(*)::int as n from executions
    where proposal_id = any(${ids}::text[]) and (attempts > 1 or status = 'outcome_unknown')`;
  return {
    liveSeconds,
    unknownAtSomePoint: unknown?.n ?? 0,
    settledAfterExpiry,
    statuses: countByStatus(await proposalRows(sql, ids)),
  };
}

/** Unknown outcomes the running worker has not asked about yet. */
async function neverChecked(sql: postgres.Sql, ids: string[]): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from executions
    where proposal_id = any(${ids}::text[]) and status = 'outcome_unknown' and attempts < 2`;
  return row?.n ?? 0;
}

/** One record in a system of record (refund or hold), as `GET /orders/:id` and `GET /skus/:sku` show it. */
type Effect = { idempotencyKey: string; amount: number };

/** A read (idempotent) tried up to three times: a kept-alive socket the server closed as it was reused fails once. */
async function read(url: string): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

async function effectsOn(systemsUrl: string, resource: Resource): Promise<Effect[]> {
  const response = await read(
    `${systemsUrl}/${resource.kind === 'order' ? 'orders' : 'skus'}/${encodeURIComponent(resource.id)}`,
  );
  if (!response.ok) throw new Error(`the systems of record answered ${response.status} for a ${resource.kind}`);
  const body = (await response.json()) as {
    refunds?: { idempotencyKey: string; amountMinor: number }[];
    holds?: { idempotencyKey: string; quantity: number }[];
  };
  return resource.kind === 'order'
    ? (body.refunds ?? []).map((refund) => ({ idempotencyKey: refund.idempotencyKey, amount: refund.amountMinor }))
    : (body.holds ?? []).map((hold) => ({ idempotencyKey: hold.idempotencyKey, amount: hold.quantity }));
}

export type Verdict = {
  operations: number;
  proposals: number;
  statuses: Record<string, number>;
  notFinal: number;
  succeeded: number;
  effects: number;
  /** Operations or proposals with more than one effect, or more than one succeeded execution. */
  doubleEffects: number;
  /**
   * Succeeded proposals without their effect, effects of proposals not recorded as succeeded, or amounts that differ.
   */
  mismatches: number;
  violations: string[];
};

/**
 * (a) every proposal final; (b) at most one effect per operation and per proposal, and the effects
 * in the systems of record are exactly those of the proposals recorded as succeeded (matched by
 * the command's idempotency key, amounts equal). Only this phase's resources are read, and every
 * `cs.` effect on them must belong to one of its proposals.
 */
export async function verify(sql: postgres.Sql, systemsUrl: string, operations: Operation[]): Promise<Verdict> {
  const violations: string[] = [];
  const ids = operations.flatMap((operation) => operation.proposalIds);
  const rows = new Map((await proposalRows(sql, ids)).map((row) => [row.id, row]));
  const byKey = new Map(ids.map((id) => [idempotencyKeyFor(id), id]));

  const executed = await sql<{ proposal_id: string; n: number }[]>`
    select proposal_id, count(*)::int as n from executions
    where proposal_id = any(${ids}::text[]) and status = 'succeeded' group by proposal_id`;
  let doubleEffects = executed.filter((row) => row.n > 1).length;
  for (const row of executed.filter((row) => row.n > 1))
    violations.push(`proposal ${row.proposal_id} has ${row.n} succeeded executions`);

  const resources = new Map(
    operations.map((operation) => [`${operation.resource.kind}:${operation.resource.id}`, operation.resource]),
  );
  const effects = new Map<string, Effect[]>();
  for (const resource of resources.values()) {
    for (const effect of await effectsOn(systemsUrl, resource)) {
      if (!effect.idempotencyKey.startsWith('cs.')) continue;
      const id = byKey.get(effect.idempotencyKey);
      if (!id) {
        violations.push(`an effect under ${effect.idempotencyKey} belongs to no proposal of this phase`);
        continue;
      }
      effects.set(id, [...(effects.get(id) ?? []), effect]);
    }
  }

  let mismatches = 0;
  let notFinal = 0;
  for (const operation of operations) {
    const withEffect = operation.proposalIds.filter((id) => effects.has(id));
    if (withEffect.length > 1) {
      doubleEffects++;
      violations.push(`operation ${operation.requestId}: ${withEffect.length} proposals of one chain took effect`);
    }
    for (const id of operation.proposalIds) {
      const row = rows.get(id);
      if (!row) {
        violations.push(`proposal ${id} (operation ${operation.requestId}) is not in the database`);
        continue;
      }
      if (!FINAL_STATUSES.includes(row.status)) {
        notFinal++;
        violations.push(`proposal ${id} is ${row.status}, not final`);
      }
      const found = effects.get(id) ?? [];
      if (found.length > 1) {
        doubleEffects++;
        violations.push(`proposal ${id} has ${found.length} effects`);
      }
      const expected = Number(row.args.amountMinor ?? row.args.quantity);
      if (row.status === 'succeeded' && (found.length !== 1 || found[0]!.amount !== expected)) {
        mismatches++;
        violations.push(`proposal ${id} succeeded but the system of record holds ${found.length} effect(s) for it`);
      }
      if (row.status !== 'succeeded' && found.length > 0) {
        mismatches++;
        violations.push(`proposal ${id} is ${row.status} but took effect in the system of record`);
      }
    }
  }
  const statuses = countByStatus([...rows.values()]);
  return {
    operations: operations.length,
    proposals: rows.size,
    statuses,
    notFinal,
    succeeded: statuses.succeeded ?? 0,
    effects: [...effects.values()].reduce((sum, list) => sum + list.length, 0),
    doubleEffects,
    mismatches,
    violations,
  };
}
