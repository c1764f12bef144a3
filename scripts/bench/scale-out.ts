/**
 * Scale-out (issue 14): two `next start` servers (WORKER_IN_PROCESS=0) and two `npm run worker`
 * processes on the bench's one PostgreSQL database, with the demo's secrets, systems of record
 * (scripts/systems.ts on the demo's ledger file) and notification receivers, started again from the
 * demo's data folder once the demo is stopped.
 * Both servers answer for one public APP_URL (the first server), as behind a load balancer: it is
 * the commands' issuer and where the workers send them.
 *
 * Measures intake over many resources at 32 connections, 16 to each server at once, and approval →
 * succeeded through both servers with both workers dispatching; then checks that nothing was lost
 * or duplicated: every 2xx intake answer is exactly one proposal; every approved proposal has
 * exactly one execution, one command was minted for it and delivered (a delivery retried after a
 * timeout is counted and reported, not failed: the executor refuses a replay), and the system of
 * record holds exactly one refund for it (read from the system's own ledger).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { type DemoChannels, demoAllowedOrigins } from '@/demo/channels';
import { startDemoReceivers } from '@/demo/receivers/start';
import { childEnvironment } from '@/lib/env';
import { until, type Watched, waitForHealth } from '@/scripts/shared/wait';
import {
  type ApprovalRun,
  approvalRow,
  approvalTableHeader,
  measureApprovals,
  proposeRefunds,
  signIn,
} from './approval';
import { peakRssSummary, percentile } from './processes';

const STOP_TIMEOUT_MS = 15_000;
const START_TIMEOUT_MS = 120_000;

/** What bench.ts lends: its load driver and request maker, so both runs load the servers alike. */
export type IntakeDriver = {
  drive(
    connections: number,
    seconds: number,
    url: string,
    latencies: number[],
    sent: string[],
  ): Promise<{
    ok: number;
    errors: number;
    seconds: number;
    created: number;
    unanswered: { requestId: string; body: string; key: string }[];
  }>;
  settle(
    url: string,
    unanswered: { requestId: string; body: string; key: string }[],
  ): Promise<{ created: number; replayed: number; refused: number }>;
};

export type ScaleOutResult = {
  servers: number;
  workers: number;
  intake: {
    connections: number;
    seconds: number;
    perSecond: number;
    p50: number;
    p95: number;
    p99: number;
    errors: number;
    perServer: { ok: number; errors: number }[];
    /** The single demo server's intake over many resources at 32 connections in this run, if measured. */
    singleServer?: { perSecond: number; p50: number; p95: number; p99: number };
  };
  intakeCheck: { answered2xx: number; proposals: number; distinctRequests: number; ok: boolean };
  approvals: ApprovalRun;
  approvalCheck: {
    approved: number;
    executedOnce: number;
    deliveredOnce: number;
    deliveryRetries: number;
    refundedOnce: number;
    dispatchedByWorker: number[];
    ok: boolean;
  };
  peakRssMb: ReturnType<typeof peakRssSummary>;
};

type Secrets = { authSecret: string; signingKeys: string; scopeCredentials: Record<string, string> };

const readJson = <T>(file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

/** Waits until a process's log file says `text`. */
const waitForLine = (file: string, text: string, watched: Watched, ms: number) =>
  until(
    `${watched.name} to log "${text}"`,
    ms,
    () => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(text),
    { watched },
  );

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** Counts what a worker log says it delivered ("dispatched N commands: D delivered, …"). */
function deliveredInLog(file: string): number {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  return [...text.matchAll(/dispatched \d+ commands?: (\d+) delivered/g)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
}

export async function runScaleOut(options: {
  databaseUrl: string;
  dataDir: string;
  ports: { servers: [number, number]; systems: number; mail: number; sink: number };
  scale: number;
  seconds: number;
  driver: IntakeDriver;
  agentKey: string;
  approver: { email: string; password: string };
  /** The highest scaled order to refund; the approvals use `count` orders down from it. */
  firstOrder: number;
  count: number;
  singleServer?: ScaleOutResult['intake']['singleServer'];
  progress: (text: string) => void;
}): Promise<ScaleOutResult> {
  const { dataDir, ports } = options;
  const secrets = readJson<Secrets>(path.join(dataDir, 'secrets.json'));
  const channels = readJson<DemoChannels>(path.join(dataDir, 'demo-channels.json'));
  const apps = ports.servers.map((port) => `http://127.0.0.1:${port}`);
  const publicUrl = apps[0]!;
  const children: ChildProcess[] = [];
  const receivers = await startDemoReceivers({ sinkPort: ports.sink, mailPort: ports.mail, appUrl: publicUrl });
  receivers.sink.expectSecret('/webhook', channels.webhook.secret);
  const sql = postgres(options.databaseUrl, { max: 2, onnotice: () => {} });
  const systemsUrl = `http://127.0.0.1:${ports.systems}`;
  try {
    const shared = {
      COUNTERSIGN_DEMO: '1',
      COUNTERSIGN_DATA_DIR: dataDir,
      DATABASE_URL: options.databaseUrl,
      AUTH_SECRET: secrets.authSecret,
      SIGNING_KEYS: secrets.signingKeys,
      SCOPE_CREDENTIALS: JSON.stringify(secrets.scopeCredentials),
      SYSTEMS_OF_RECORD_URL: systemsUrl,
      SMTP_URL: receivers.mail.url,
      NOTIFY_ALLOWED_PRIVATE_ORIGINS: demoAllowedOrigins(ports).join(','),
      APP_URL: publicUrl,
      WORKER_IN_PROCESS: '0',
      AGENT_RATE_LIMIT_PER_MINUTE: '9999999',
      NEXT_MANUAL_SIG_HANDLE: 'true',
      NEXT_TELEMETRY_DISABLED: '1',
    };
    const spawnLogged = (name: string, args: string[], extra: Record<string, string> = {}) => {
      const log = fs.openSync(path.join(dataDir, `${name}.log`), 'w');
      const child = spawn(process.execPath, args, {
        stdio: ['ignore', log, log],
        env: childEnvironment({ ...shared, ...extra }),
      });
      fs.closeSync(log);
      children.push(child);
      return child;
    };
    // The systems of record in a process of their own, as the demo runs them: in the bench's, they
    // would wait behind its load generator.
    const systems = spawnLogged(
      'scale-out-systems',
      [
        '--import',
        'tsx',
        'scripts/systems.ts',
        '--port',
        String(ports.systems),
        '--data-file',
        path.join(dataDir, 'systems-of-record.json'),
      ],
      {
        DEMO_SCALE: String(options.scale),
      },
    );
    await waitForLine(
      path.join(dataDir, 'scale-out-systems.log'),
      'Systems of record listening',
      { child: systems, name: 'the scale-out systems of record' },
      START_TIMEOUT_MS,
    );
    options.progress(
      `Scale-out: two servers on ports ${ports.servers.join(' and ')} (WORKER_IN_PROCESS=0) and two workers ` +
        `on one database…`,
    );
    const servers = ports.servers.map((port, i) =>
      spawnLogged(
        `scale-out-server-${i + 1}`,
        [path.join(process.cwd(), 'node_modules/next/dist/bin/next'), 'start', '-p', String(port)],
        { PORT: String(port) },
      ),
    );
    const workers = [1, 2].map((i) => spawnLogged(`scale-out-worker-${i}`, ['--import', 'tsx', 'scripts/worker.ts']));
    const deadline = Date.now() + START_TIMEOUT_MS;
    await Promise.all(
      servers.map((server, i) =>
        waitForHealth(
          `${apps[i]!}/api/health`,
          { child: server, name: `scale-out server ${i + 1}` },
          deadline - Date.now(),
        ),
      ),
    );
    // A worker starting up (compiling, migrating) would take the CPU the measured servers need.
    await Promise.all(
      workers.map((worker, i) =>
        waitForLine(
          path.join(dataDir, `scale-out-worker-${i + 1}.log`),
          'worker running',
          { child: worker, name: `scale-out worker ${i + 1}` },
          deadline - Date.now(),
        ),
      ),
    );

    // Intake: warm both servers up (not counted) until they answer under load, then 16 connections on each at once.
    const { driver } = options;
    for (let round = 0; round < 5; round++) {
      const warm = await Promise.all(apps.map((app) => driver.drive(8, 1, `${app}/api/v1/proposals`, [], [])));
      if (warm.every((run) => run.ok > 0)) break;
    }
    const latencies: number[] = [];
    const sent: string[] = [];
    const perServer = await Promise.all(
      apps.map((app) => driver.drive(16, options.seconds, `${app}/api/v1/proposals`, latencies, sent)),
    );
    latencies.sort((a, b) => a - b);
    const seconds = Math.max(...perServer.map((run) => run.seconds));
    const ok = perServer.reduce((sum, run) => sum + run.ok, 0);
    const round = (ms: number) => Math.round(ms * 10) / 10;
    const intake = {
      connections: 32,
      seconds,
      perSecond: Math.round((ok / seconds) * 10) / 10,
      p50: round(percentile(latencies, 50)),
      p95: round(percentile(latencies, 95)),
      p99: round(percentile(latencies, 99)),
      errors: perServer.reduce((sum, run) => sum + run.errors, 0),
      perServer: perServer.map((run) => ({ ok: run.ok, errors: run.errors })),
      ...(options.singleServer ? { singleServer: options.singleServer } : {}),
    };
    options.progress(
      `Scale-out intake · 2 × 16 conn: ${intake.perSecond.toFixed(0)}/s, p50 ${intake.p50} ms, ` +
        `p95 ${intake.p95} ms, p99 ${intake.p99} ms, errors ${intake.errors}`,
    );
    const settled = { created: 0, replayed: 0, refused: 0 };
    for (const [i, run] of perServer.entries()) {
      const answer = await driver.settle(`${apps[i]}/api/v1/proposals`, run.unanswered);
      settled.created += answer.created;
      settled.replayed += answer.replayed;
      settled.refused += answer.refused;
    }
    const [counted] = await sql<{ total: number; distinct: number }[]>`
      select count(*)::int as total, count(distinct request_id)::int as distinct from proposals
      where request_id = any(${sent}::text[])`;
    const answered2xx = perServer.reduce((sum, run) => sum + run.created, 0) + settled.created + settled.replayed;
    const intakeCheck = {
      answered2xx,
      proposals: counted?.total ?? 0,
      distinctRequests: counted?.distinct ?? 0,
      ok: counted?.total === answered2xx && counted.distinct === counted.total,
    };

    // Approvals through both servers, dispatched by both workers.
    const session = await signIn(apps[0]!, options.approver.email, options.approver.password);
    const proposals = await proposeRefunds(apps, options.agentKey, options.firstOrder, options.count);
    const approvals = await measureApprovals({
      apps,
      session,
      databaseUrl: options.databaseUrl,
      proposals,
      concurrency: 8,
    });
    options.progress(`Scale-out ${approvalRow('both servers', approvals)}`);
    const ids = proposals.map((proposal) => proposal.id);
    // The workers finish what they claimed before the counts: an execution can read `succeeded`
    // a moment before its dispatcher marks the command's outbox row delivered.
    const peakRssMb = peakRssSummary([...servers, ...workers].map((child) => child.pid!));
    for (const worker of workers) await stopChild(worker);
    const [executed] = await sql<{ once: number }[]>`
      select count(*)::int as once from (select proposal_id from executions where proposal_id = any(${ids}::text[])
        group by proposal_id having count(*) = 1 and bool_and(status::text = 'succeeded')) as single`;
    // One command per approval, delivered. A second attempt (the first timed out on a loaded
    // machine) is at-least-once delivery working, not duplicated work: the executor's single-use
    // check and the refund count below are what prove nothing ran twice, so retries are reported.
    const [delivered] = await sql<{ once: number; retried: number }[]>`
      select count(*)::int as once, count(*) filter (where retried)::int as retried from (
        select proposal_id, bool_or(attempts > 1) as retried from outbox
        where topic = 'command.minted' and proposal_id = any(${ids}::text[])
        group by proposal_id having count(*) = 1 and bool_and(delivered_at is not null)) as single`;
    let refundedOnce = 0;
    for (const proposal of proposals) {
      const order = (await (await fetch(`${systemsUrl}/orders/${proposal.orderId}`)).json()) as {
        refunds?: { idempotencyKey: string }[];
      };
      const refunds = order.refunds ?? [];
      if (refunds.length === 1 && refunds[0]?.idempotencyKey === `cs.${proposal.id}`) refundedOnce++;
    }
    const dispatchedByWorker = [1, 2].map((i) => deliveredInLog(path.join(dataDir, `scale-out-worker-${i}.log`)));
    const approvalCheck = {
      approved: proposals.length,
      executedOnce: executed?.once ?? 0,
      deliveredOnce: delivered?.once ?? 0,
      deliveryRetries: delivered?.retried ?? 0,
      refundedOnce,
      dispatchedByWorker,
      ok:
        [executed?.once, delivered?.once, refundedOnce].every((n) => n === proposals.length) &&
        approvals.succeeded === proposals.length,
    };
    options.progress(
      `Scale-out check: intake ${intakeCheck.answered2xx} answered 2xx, ${intakeCheck.proposals} proposals ` +
        `(${intakeCheck.distinctRequests} distinct); ` +
        `approvals ${approvalCheck.executedOnce}/${approvalCheck.approved} executed ` +
        `once, ${approvalCheck.deliveredOnce} delivered once (${approvalCheck.deliveryRetries} after a ` +
        `retry), ${approvalCheck.refundedOnce} refunded once in the system of record; workers ` +
        `delivered ${dispatchedByWorker.join(' + ')}`,
    );
    return { servers: 2, workers: 2, intake, intakeCheck, approvals, approvalCheck, peakRssMb };
  } finally {
    await Promise.allSettled(children.map(stopChild));
    await sql.end();
    await receivers.close().catch(() => undefined);
  }
}

/** The scale-out run's part of results.md. */
export function scaleOutSection(result: ScaleOutResult | undefined): string {
  if (!result) return '';
  const { intake, intakeCheck, approvals, approvalCheck } = result;
  const single = intake.singleServer;
  const row = (
    label: string,
    run: { perSecond: number; p50: number; p95: number; p99: number },
    errors: number | string,
  ) => `| ${label} | 32 | ${run.perSecond.toFixed(0)} | ${run.p50} | ${run.p95} | ${run.p99} | ${errors} |`;
  const answered = intake.perServer.map((server) => server.ok).join(' + ');
  const twoServers = `two servers, 16 connections each (${answered} answered 2xx)`;
  const oneServer = single ? `${row('one server (demo, worker in process)', single, '–')}\n` : '';
  return (
    `| Intake, many resources | Connections | proposals/s | p50 ms | p95 ms | p99 ms | Errors |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
${oneServer}${row(twoServers, intake, intake.errors)}

${[...approvalTableHeader, approvalRow('both servers, two worker processes', approvals)].join('\n')}

Scale-out: two \`next start\` servers (WORKER_IN_PROCESS=0) and two \`npm run worker\` processes on one PostgreSQL ` +
    `database, ${intake.seconds} s of intake; peak RSS ${result.peakRssMb.total} MB for the four processes.
Nothing lost or duplicated: ${intakeCheck.answered2xx} intake answers 2xx and ${intakeCheck.proposals} proposals (` +
    `${intakeCheck.distinctRequests} distinct requests); ${approvalCheck.approved} approved, ` +
    `${approvalCheck.executedOnce} executed exactly once, ${approvalCheck.deliveredOnce} commands minted once ` +
    `and delivered (${approvalCheck.deliveryRetries} of them on a second attempt), ` +
    `${approvalCheck.refundedOnce} with exactly one refund in the system of record; the workers delivered ` +
    `${approvalCheck.dispatchedByWorker.join(' and ')}.

`
  );
}
