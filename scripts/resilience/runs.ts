/**
 * The randomized runs: each creates one proposal (a refund or a hold, on its own resource or on
 * one shared with other runs) and then, concurrently, a seeded mix of approvals by one or two
 * operators, a rejection racing an approval, an edit racing a decision, replays of its requestId,
 * and an executor fault queued before the approval. Every proposal a run leaves pending is then
 * decided, so that every one of them has a reason to end final.
 */
import type postgres from 'postgres';
import type { FaultMode, FaultTarget } from '@/demo/systems/schemas';
import { FAULT_MODES } from '@/demo/systems/schemas';
import { scaledIds } from '@/demo/systems/world';
import { type Answer, type Operator, type ProposalAnswer, type ProposalRequest, propose, type Tally } from './http';
import type { Operation } from './outcomes';
import { pool } from './pool';
import { type Random, seededRandom } from './random';

export type Workload = {
  appUrl: string;
  systemsUrl: string;
  sql: postgres.Sql;
  tally: Tally;
  keys: string[];
  alice: Operator;
  bob: Operator;
};

const SCENARIOS = [
  'approve',
  'approve_both',
  'reject',
  'approve_vs_reject',
  'edit_vs_approve',
  'edit_vs_reject',
  'edit_then_approve',
  'approve_twice',
] as const;
type Scenario = (typeof SCENARIOS)[number];

export type RunsReport = {
  runs: number;
  seed: number;
  concurrency: number;
  seconds: number;
  scenarios: Record<string, number>;
  sharedResource: number;
  refusedAtIntake: number;
  replays: number;
  replayMismatches: number;
  faultsQueued: Record<string, number>;
  revisions: number;
  operations: Operation[];
};

/** The scaled world's indices: each phase takes its own range, so the checks read only its effects. */
export type IndexRange = { first: number; count: number };

/** Resources at the end of the runs' range that any run may pick (the others each have their own). */
export const SHARED_POOL = 8;

/** What one run proposes: from its own PRNG, so run N is the same whatever the interleaving. */
function drawRequest(
  random: Random,
  run: number,
  range: IndexRange,
  label: string,
): { request: ProposalRequest; shared: boolean } {
  const shared = random.chance(0.3);
  const index = shared ? range.first + range.count - SHARED_POOL + random.int(0, SHARED_POOL - 1) : range.first + run;
  const ids = scaledIds(index);
  const requestId = `res-${label}-${run}`;
  if (random.chance(0.5)) {
    // On a shared order the amounts stay small, so the balance (1,000.00) covers every run; alone, some need two
    // approvers.
    const amountMinor = shared
      ? random.int(100, 3000)
      : random.chance(0.4)
        ? random.int(10_001, 30_000)
        : random.int(100, 9_000);
    return {
      shared,
      request: {
        requestId,
        action: 'issue_refund',
        args: { orderId: ids.order, amountMinor, currency: 'USD', reason: 'Resilience run' },
        evidenceRefs: [ids.evidence],
      },
    };
  }
  return {
    shared,
    request: { requestId, action: 'hold_stock', args: { sku: ids.sku, quantity: random.int(1, 4) }, evidenceRefs: [] },
  };
}

/** The edited arguments: another amount or quantity (the locked fields stay). */
function edited(request: ProposalRequest): Record<string, unknown> {
  const args = request.args;
  return request.action === 'issue_refund'
    ? { ...args, amountMinor: Math.max(1, Number(args.amountMinor) - 1) }
    : { ...args, quantity: Number(args.quantity) === 1 ? 2 : Number(args.quantity) - 1 };
}

async function queueFault(systemsUrl: string, target: FaultTarget, mode: FaultMode): Promise<void> {
  const response = await fetch(`${systemsUrl}/__faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target, mode, times: 1 }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok)
    throw new Error(`queueing a fault answered ${response.status} (is the systems of record in test mode?)`);
}

type Open = { id: string; status: string; payload_hash: string; parent_id: string | null };

/**
 * The proposal and every revision made from it (the database is the truth: a race may have made one the script did not
 * see).
 */
async function chainOf(sql: postgres.Sql, rootId: string): Promise<Open[]> {
  return sql<Open[]>`
    with recursive chain as (
      select id, status::text as status, payload_hash, parent_id, created_at from proposals where id = ${rootId}
      union all
      select p.id, p.status::text, p.payload_hash, p.parent_id, p.created_at
      from proposals p join chain on p.parent_id = chain.id
    ) select id, status, payload_hash, parent_id from chain order by created_at`;
}

/** The agent's retries of the same request: every answer must name the same proposal. */
async function replays(
  workload: Workload,
  key: string,
  request: ProposalRequest,
  count: number,
): Promise<Answer<ProposalAnswer>[]> {
  return Promise.all(Array.from({ length: count }, () => propose(workload.tally, workload.appUrl, key, request)));
}

async function scenario(
  workload: Workload,
  random: Random,
  which: Scenario,
  created: { id: string; payloadHash: string },
  request: ProposalRequest,
) {
  const { alice, bob } = workload;
  const [first, second] = random.chance(0.5) ? [alice, bob] : [bob, alice];
  const { id, payloadHash } = created;
  switch (which) {
    case 'approve':
      return Promise.all([first.decide(id, payloadHash, 'approve')]);
    case 'approve_both':
      return Promise.all([first.decide(id, payloadHash, 'approve'), second.decide(id, payloadHash, 'approve')]);
    case 'reject':
      return Promise.all([first.decide(id, payloadHash, 'reject')]);
    case 'approve_vs_reject':
      return Promise.all([first.decide(id, payloadHash, 'approve'), second.decide(id, payloadHash, 'reject')]);
    case 'edit_vs_approve':
      return Promise.all([first.revise(id, edited(request)), second.decide(id, payloadHash, 'approve')]);
    case 'edit_vs_reject':
      return Promise.all([first.revise(id, edited(request)), second.decide(id, payloadHash, 'reject')]);
    case 'edit_then_approve': {
      // The revision, approved by the other operator while its editor tries too and the replaced parent is approved
      // late.
      const revised = await first.revise(id, edited(request));
      const revision = typeof revised.status === 'number' && revised.status === 201 ? revised.body : undefined;
      if (!revision) return [revised];
      return Promise.all([
        second.decide(revision.id, revision.payloadHash, 'approve'),
        first.decide(revision.id, revision.payloadHash, 'approve'),
        second.decide(id, payloadHash, 'approve'),
      ]);
    }
    case 'approve_twice':
      return Promise.all([first.decide(id, payloadHash, 'approve'), first.decide(id, payloadHash, 'approve')]);
  }
}

/**
 * Decides what a run left pending: approve (each operator in turn; an editor may not approve
 * their own revision, and a two-approver refund needs both) or reject, as the PRNG says.
 */
async function close(workload: Workload, random: Random, rootId: string): Promise<void> {
  const approve = random.chance(0.7);
  for (const operator of approve ? [workload.bob, workload.alice] : [workload.bob]) {
    const open = (await chainOf(workload.sql, rootId)).filter((proposal) => proposal.status === 'pending_approval');
    await Promise.all(
      open.map((proposal) => operator.decide(proposal.id, proposal.payload_hash, approve ? 'approve' : 'reject')),
    );
  }
  // What is still open needs an approver the run does not have (an edited two-approver refund): whoever has not decided
  // it rejects it.
  for (const operator of [workload.alice, workload.bob]) {
    const stillOpen = (await chainOf(workload.sql, rootId)).filter(
      (proposal) => proposal.status === 'pending_approval',
    );
    await Promise.all(stillOpen.map((proposal) => operator.decide(proposal.id, proposal.payload_hash, 'reject')));
  }
}

export async function randomizedRuns(
  workload: Workload,
  options: { runs: number; seed: number; concurrency: number; range: IndexRange; progress: (text: string) => void },
): Promise<RunsReport> {
  const began = Date.now();
  const report: RunsReport = {
    runs: options.runs,
    seed: options.seed,
    concurrency: options.concurrency,
    seconds: 0,
    scenarios: {},
    sharedResource: 0,
    refusedAtIntake: 0,
    replays: 0,
    replayMismatches: 0,
    faultsQueued: {},
    revisions: 0,
    operations: [],
  };
  let done = 0;
  const runs = Array.from({ length: options.runs }, (_, run) => run);
  await pool(runs, options.concurrency, async (run) => {
    // One PRNG per run, derived from the seed: the run's draws do not depend on the interleaving.
    const random = seededRandom((options.seed ^ Math.imul(run + 1, 0x9e3779b1)) >>> 0);
    const { request, shared } = drawRequest(random, run, options.range, `r${options.seed}`);
    const key = workload.keys[run % workload.keys.length]!;
    const copies = random.chance(0.3) ? random.int(2, 3) : 1;
    const answers = await replays(workload, key, request, copies);
    const ids = answers.map((answer) =>
      typeof answer.status === 'number' && answer.status < 300 ? answer.body?.proposal?.id : undefined,
    );
    const rootId = ids.find((id) => id !== undefined);
    report.replays += copies - 1;
    if (!rootId) {
      report.refusedAtIntake++;
      return;
    }
    if (ids.some((id) => id !== rootId)) report.replayMismatches++;
    if (shared) report.sharedResource++;
    const payloadHash = answers.find((answer) => answer.body?.proposal?.id === rootId)!.body!.proposal!.payloadHash;

    // One run in ten: each timeout fault holds the dispatcher for the executor's 3 s deadline.
    if (random.chance(0.1)) {
      const target: FaultTarget = request.action === 'issue_refund' ? 'refunds' : 'holds';
      const mode = random.pick(FAULT_MODES);
      await queueFault(workload.systemsUrl, target, mode);
      report.faultsQueued[mode] = (report.faultsQueued[mode] ?? 0) + 1;
    }
    const which = random.pick(SCENARIOS);
    report.scenarios[which] = (report.scenarios[which] ?? 0) + 1;
    const lateReplay = random.chance(0.2);
    const [, late] = await Promise.all([
      scenario(workload, random, which, { id: rootId, payloadHash }, request),
      lateReplay ? replays(workload, key, request, 1) : [],
    ]);
    if (lateReplay) {
      report.replays++;
      if (late.some((answer) => answer.body?.proposal?.id !== rootId)) report.replayMismatches++;
    }
    await close(workload, random, rootId);
    const chain = await chainOf(workload.sql, rootId);
    report.revisions += chain.length - 1;
    report.operations.push({
      requestId: request.requestId,
      proposalIds: chain.map((proposal) => proposal.id),
      resource:
        request.action === 'issue_refund'
          ? { kind: 'order', id: String(request.args.orderId) }
          : { kind: 'sku', id: String(request.args.sku) },
    });
    done++;
    if (done % Math.max(1, Math.round(options.runs / 10)) === 0) options.progress(`${done}/${options.runs} runs`);
  });
  report.seconds = Math.round((Date.now() - began) / 1000);
  return report;
}
