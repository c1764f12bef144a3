/**
 * Approval → succeeded (issue 14): how long after an operator's approval is answered the proposal
 * has executed in the systems of record and is `succeeded`.
 *
 * Each approval is a refund of 1.00 on its own scaled order (`ord_sNNNNNN`, counted down from the
 * top of the scale, away from the hot order), proposed by a bench agent and approved over HTTP by
 * a signed-in approver through `POST /api/v1/proposals/:id/decisions` (the demo policy needs one
 * approver for it). The clock starts when the approval's answer arrives; it stops when a watcher
 * that reads the proposals' status from the database every POLL_MS sees `succeeded` (one query for
 * every proposal awaited, so watching adds no load to the server under test).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { scaledIds } from '@/demo/systems/world';
import { percentile } from './processes';

const POLL_MS = 5;
/** Statuses on the way to an outcome; any other status is where the proposal ended. */
const IN_FLIGHT = ['pending_approval', 'approved', 'executing'];
/** One approval that has not ended within this long counts as lost. */
const SETTLE_TIMEOUT_MS = 30_000;

export type ApprovalRun = {
  concurrency: number;
  approvals: number;
  succeeded: number;
  /** Approvals answered with something other than 200, or that ended other than `succeeded`, or not within 30 s. */
  errors: number;
  /** From the approval's answer to `succeeded` seen, ms. */
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** How long the approval request itself took, ms. */
  decisionP50: number;
  /**
   * Where the time goes (p50, ms, from the executions' own timestamps): from the approval's answer
   * to the executor starting the command (negative when it started before the answer arrived), and
   * from that start to the recorded outcome (re-check, the write to the system of record, outcome).
   */
  toExecutorP50: number;
  inExecutorP50: number;
};

/** A proposal awaiting approval: its id, the hash to approve and the order it refunds. */
export type Pending = { id: string; payloadHash: string; orderId: string };

/** An operator's session: the cookie header a signed-in browser would send. */
export type Session = { cookie: string };

function cookiesOf(response: Response): string[] {
  return response.headers.getSetCookie().map((line) => line.split(';')[0]!);
}

/** Signs in through next-auth's own credentials flow (GET csrf, POST the callback), as the dashboard's form does. */
export async function signIn(app: string, email: string, password: string): Promise<Session> {
  const csrf = await fetch(`${app}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = cookiesOf(csrf);
  const callback = await fetch(`${app}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; ') },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: '/' }),
  });
  await callback.arrayBuffer();
  const session = cookiesOf(callback).find((cookie) => cookie.includes('session-token='));
  if (!session) throw new Error(`signing in as an approver failed (HTTP ${callback.status})`);
  return { cookie: session };
}

/**
 * Proposes `count` refunds of 1.00, each on its own scaled order from `firstOrder` down, through
 * the servers in turn; answers them pending approval.
 */
export async function proposeRefunds(
  apps: string[],
  agentKey: string,
  firstOrder: number,
  count: number,
): Promise<Pending[]> {
  const run = randomBytes(3).toString('hex');
  const pending: Pending[] = [];
  for (let i = 0; i < count; i++) {
    const ids = scaledIds(firstOrder - i);
    const requestId = `bench-approval-${run}-${i}`;
    const body = {
      requestId,
      contractVersion: 1,
      action: 'issue_refund',
      args: { orderId: ids.order, amountMinor: 100, currency: 'USD', reason: 'Bench: approval latency' },
      evidenceRefs: [ids.evidence],
    };
    const response = await fetch(`${apps[i % apps.length]}/api/v1/proposals`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json().catch(() => undefined)) as
      | { proposal?: { id: string; status: string; payloadHash: string } }
      | undefined;
    if (response.status !== 201 || answer?.proposal?.status !== 'pending_approval') {
      throw new Error(
        `proposing a refund on ${ids.order} was ` +
          `answered ${response.status} (${answer?.proposal?.status ?? 'no proposal'})`,
      );
    }
    pending.push({ id: answer.proposal.id, payloadHash: answer.proposal.payloadHash, orderId: ids.order });
  }
  return pending;
}

/** Approves one proposal as the session's operator; answers the HTTP status. */
export async function approve(app: string, session: Session, proposal: Pending): Promise<number> {
  const response = await fetch(`${app}/api/v1/proposals/${encodeURIComponent(proposal.id)}/decisions`, {
    method: 'POST',
    headers: { cookie: session.cookie, origin: new URL(app).origin, 'content-type': 'application/json' },
    body: JSON.stringify({ decision: 'approve', payloadHash: proposal.payloadHash }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Watches proposals in the database until each ends; answers the status it ended in and when it was seen. */
export function statusWatcher(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const waiting = new Map<string, (ended: { status: string; at: number }) => void>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      if (waiting.size > 0) {
        const rows = await sql<{ id: string; status: string }[]>`
          select id, status::text as status from proposals
          where id = any(${[...waiting.keys()]}::text[]) and status::text <> all(${IN_FLIGHT}::text[])`;
        const at = performance.now();
        for (const row of rows) {
          waiting.get(row.id)?.({ status: row.status, at });
          waiting.delete(row.id);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  return {
    /** The end of one proposal, or `timeout` after SETTLE_TIMEOUT_MS. */
    ended(id: string): Promise<{ status: string; at: number }> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          resolve({ status: 'timeout', at: performance.now() });
        }, SETTLE_TIMEOUT_MS);
        waiting.set(id, (ended) => {
          clearTimeout(timer);
          resolve(ended);
        });
      });
    },
    async stop() {
      stopped = true;
      await loop;
      await sql.end();
    },
  };
}

/**
 * Approves every proposal, `concurrency` at a time, through the servers in turn, and times each
 * from the approval's answer to `succeeded`.
 */
export async function measureApprovals(options: {
  apps: string[];
  session: Session;
  databaseUrl: string;
  proposals: Pending[];
  concurrency: number;
}): Promise<ApprovalRun> {
  const watcher = statusWatcher(options.databaseUrl);
  const answeredAt = new Map<string, number>();
  const latencies: number[] = [];
  const decisionTimes: number[] = [];
  let errors = 0;
  let next = 0;
  try {
    const lane = async () => {
      while (next < options.proposals.length) {
        const index = next++;
        const proposal = options.proposals[index]!;
        const sent = performance.now();
        const status = await approve(options.apps[index % options.apps.length]!, options.session, proposal);
        const answered = performance.now();
        answeredAt.set(proposal.id, Date.now());
        decisionTimes.push(answered - sent);
        if (status !== 200) {
          errors++;
          continue;
        }
        const ended = await watcher.ended(proposal.id);
        if (ended.status === 'succeeded') latencies.push(Math.max(0, ended.at - answered));
        else errors++;
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, lane));
  } finally {
    await watcher.stop();
  }
  latencies.sort((a, b) => a - b);
  decisionTimes.sort((a, b) => a - b);
  const { toExecutor, inExecutor } = await executorTimes(options.databaseUrl, answeredAt);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    concurrency: options.concurrency,
    approvals: options.proposals.length,
    succeeded: latencies.length,
    errors,
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies.at(-1) ?? NaN),
    decisionP50: round(percentile(decisionTimes, 50)),
    toExecutorP50: round(percentile(toExecutor, 50)),
    inExecutorP50: round(percentile(inExecutor, 50)),
  };
}

/** The executions' timestamps beside the moments the approvals were answered (epoch ms by proposal id). */
async function executorTimes(databaseUrl: string, answeredAt: Map<string, number>) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ proposalId: string; createdAt: Date; updatedAt: Date }[]>`
      select proposal_id as "proposalId", created_at as "createdAt", updated_at as "updatedAt" from executions
      where proposal_id = any(${[...answeredAt.keys()]}::text[])`;
    const toExecutor = rows
      .map((row) => row.createdAt.getTime() - answeredAt.get(row.proposalId)!)
      .sort((a, b) => a - b);
    const inExecutor = rows.map((row) => row.updatedAt.getTime() - row.createdAt.getTime()).sort((a, b) => a - b);
    return { toExecutor, inExecutor };
  } finally {
    await sql.end();
  }
}

export const approvalTableHeader = [
  '| Approvals through | Concurrency | Approvals | Succeeded | approval → succeeded p50 ms | p95 ms | p99 ms ' +
    '| max ms | approve request p50 ms | answer → executor p50 ms | in executor p50 ms | Errors |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];

export function approvalRow(label: string, run: ApprovalRun): string {
  return (
    `| ${label} | ${run.concurrency} | ${run.approvals} | ${run.succeeded} | ${run.p50} | ${run.p95} | ` +
    `${run.p99} | ${run.max} | ${run.decisionP50} | ${run.toExecutorP50} | ${run.inExecutorP50} | ` +
    `${run.errors} |`
  );
}

/** The approval scenario on the running demo: sequential, then CONCURRENCY at a time. */
export async function approvalScenario(options: {
  app: string;
  databaseUrl: string;
  agentKey: string;
  approver: { email: string; password: string };
  /** The highest scaled order to refund; the scenario uses `2 × count` orders down from it. */
  firstOrder: number;
  count: number;
  progress: (text: string) => void;
}): Promise<ApprovalRun[]> {
  const session = await signIn(options.app, options.approver.email, options.approver.password);
  const runs: ApprovalRun[] = [];
  let firstOrder = options.firstOrder;
  for (const concurrency of [1, 8]) {
    const proposals = await proposeRefunds([options.app], options.agentKey, firstOrder, options.count);
    firstOrder -= options.count;
    const run = await measureApprovals({
      apps: [options.app],
      session,
      databaseUrl: options.databaseUrl,
      proposals,
      concurrency,
    });
    runs.push(run);
    options.progress(
      `Approval → succeeded · ${concurrency} at a time: p50 ${run.p50} ms, p95 ${run.p95} ms, ` +
        `p99 ${run.p99} ms (p50 ${run.toExecutorP50} ms to the executor, ${run.inExecutorP50} ms in ` +
        `it), ${run.succeeded}/${run.approvals} succeeded, errors ${run.errors}`,
    );
  }
  return runs;
}

/** The approval scenario's part of results.md. */
export function approvalSection(
  approval: { runs: ApprovalRun[]; serverPeakRssMb: { total: number; sinceScenarioStart: boolean } } | undefined,
): string {
  if (!approval) return '';
  const peak =
    `${approval.serverPeakRssMb.total} MB` +
    `${approval.serverPeakRssMb.sinceScenarioStart ? '' : ' (since the start: the peak could not be reset)'}`;
  const runs = approval.runs.map((run) => approvalRow('the demo server (worker in process)', run));
  return (
    `${[...approvalTableHeader, ...runs].join('\n')}

Approval → succeeded: refunds of 1.00 on distinct orders approved over HTTP by a signed-in approver, timed from the ` +
    `approval's answer until the database says \`succeeded\` (polled every ${POLL_MS} ms). Server peak RSS ` +
    `during the approvals: ${peak} (demo process tree).

`
  );
}
