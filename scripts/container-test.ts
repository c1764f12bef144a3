/**
 * `npm run test:container`: the container image, end to end, when a Docker engine can run here.
 *
 * Builds the FROM images where no registry answers (scripts/ci/base-images.sh), builds the
 * Dockerfile (with `--prebuilt`, as `npm test` runs it: its `prebuilt` target from the standalone
 * build the suite's build step made, instead of npm ci and next build inside Docker), and against a scratch database on
 * DATABASE_URL's PostgreSQL: `migrate`, the `cli` (signing key, tenant, operator, agent key), the dashboard (`start`,
 * WORKER_IN_PROCESS=0) until its HEALTHCHECK says healthy, and a `worker`. An agent proposes a stock hold through the
 * dashboard's HTTP API, the operator signs in and approves it over HTTP, and the proposal must
 * reach `succeeded`, which only the worker container can cause by dispatching the signed command.
 * Then: both containers run as a user other than root and the worker's log says it dispatched.
 * Last, compose.yaml validates and comes up in health order (PostgreSQL → migrate → dashboard →
 * worker) with the same image. The other containers use the host's network (the database and the
 * demo systems of record, run here from scripts/systems.ts, are on loopback). Without an engine,
 * or without DATABASE_URL, it says why and exits 0.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentProposalView } from '@/lib/api/responses/proposals';
import { childEnvironment } from '@/lib/env';
import { scratchDatabase } from '@/scripts/shared/scratch-database';
import { sessionCookie } from '@/scripts/shared/session';
import { until, waitForHealth } from '@/scripts/shared/wait';

const IMAGE = 'countersign:container-test';
const PORT = Number(process.env.CONTAINER_TEST_PORT ?? 3420);
const SYSTEMS_PORT = PORT + 1;
const APP = `http://127.0.0.1:${PORT}`;
/** The README's team action (scripts/examples/team-action): its resolver and executor listen here. */
const TEAM_SERVICE = 'http://127.0.0.1:4795';
const run = randomBytes(3).toString('hex');
const names = { web: `countersign-test-web-${run}`, worker: `countersign-test-worker-${run}` };

type Ran = { ok: boolean; out: string };

/** `--prebuilt` (npm test): the image from the standalone build the suite made, not a second build inside Docker. */
const prebuilt = process.argv.includes('--prebuilt');
const CONTEXT = path.join('.next', 'container-context');

/** A command to its end, its stdout and stderr together. */
function sh(command: string, args: string[], options: { input?: string; env?: Record<string, string> } = {}): Ran {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    input: options.input,
    env: childEnvironment(options.env ?? {}),
    maxBuffer: 64 * 1024 * 1024,
  });
  return {
    ok: result.status === 0,
    out: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? result.error.message : ''}`,
  };
}

function must(what: string, ran: Ran): string {
  if (!ran.ok) throw new Error(`${what} failed:\n${ran.out.trim()}`);
  return ran.out;
}

const docker = (...args: string[]) => sh('docker', args);
const seconds = (since: number) => Math.round((Date.now() - since) / 100) / 10;

const hasCommand = (name: string) => sh('sh', ['-c', `command -v ${name}`]).ok;

/** A Docker engine that answers: one already running, else dockerd started here (root only). */
async function engine(): Promise<{ ok: true; started?: ChildProcess } | { ok: false; reason: string }> {
  if (!hasCommand('docker')) return { ok: false, reason: 'no docker command' };
  if (docker('info').ok) return { ok: true };
  if (process.getuid?.() !== 0) return { ok: false, reason: 'none answers, and starting dockerd needs root' };
  if (!hasCommand('dockerd'))
    return { ok: false, reason: 'none answers, and dockerd is not installed (apt-get install docker.io)' };
  const log = path.join(os.tmpdir(), 'countersign-dockerd.log');
  // Defaults first (overlay2, iptables); a kernel or sandbox without them gets vfs and no iptables.
  for (const flags of [[], ['--storage-driver=vfs', '--iptables=false']]) {
    const out = fs.openSync(log, 'a');
    const started = spawn('dockerd', flags, { stdio: ['ignore', out, out], detached: true });
    fs.closeSync(out);
    const answered = await until('dockerd', 30_000, () => started.exitCode !== null || docker('info').ok).then(
      () => started.exitCode === null,
      () => false,
    );
    if (answered) {
      console.log(`dockerd started${flags.length > 0 ? ` with ${flags.join(' ')}` : ''} (log: ${log})`);
      return { ok: true, started };
    }
    started.kill('SIGTERM');
  }
  return { ok: false, reason: `dockerd did not start (see ${log})` };
}

/**
 * The Dockerfile's `prebuilt` target's context, laid out as the image's /app: from the
 * suite's `next build` (NEXT_OUTPUT=standalone) and the bundles made here by docker/bundle.sh, as
 * the build stage makes them. In .next (hard links, so nothing large is copied; no .dockerignore there).
 */
function prebuiltContext(): string {
  const standalone = path.join('.next', 'standalone');
  if (!fs.existsSync(path.join(standalone, 'server.js'))) {
    throw new Error(
      '--prebuilt needs the standalone build (`NEXT_OUTPUT=standalone npx next build`, the build step of npm ' +
        'test); none is in .next/standalone',
    );
  }
  const app = CONTEXT;
  fs.rmSync(app, { recursive: true, force: true });
  must('copying the standalone build', sh('cp', ['-al', standalone, app]));
  // Settings files never reach the image (.dockerignore keeps them out of the other build too).
  for (const name of fs.readdirSync(app)) if (name.startsWith('.env')) fs.rmSync(path.join(app, name));
  for (const [from, to] of [
    [path.join('.next', 'static'), path.join('.next', 'static')],
    ['public', 'public'],
    ['drizzle', 'drizzle'],
  ] as const) {
    fs.rmSync(path.join(app, to), { recursive: true, force: true });
    must(`copying ${from}`, sh('cp', ['-al', from, path.join(app, to)]));
  }
  fs.mkdirSync(path.join(app, 'docker'));
  for (const file of ['entrypoint.sh', 'healthcheck.mjs'])
    fs.copyFileSync(path.join('docker', file), path.join(app, 'docker', file));
  fs.chmodSync(path.join(app, 'docker', 'entrypoint.sh'), 0o755);
  must('docker/bundle.sh', sh('sh', ['docker/bundle.sh', path.join(app, 'dist')]));
  return app;
}

/** `docker run --rm` of the image with the settings file; answers what it printed. */
function oneShot(envFile: string, ...args: string[]): string {
  return must(
    `docker run … ${args.join(' ')}`,
    docker('run', '--rm', '--network', 'host', '--env-file', envFile, IMAGE, ...args),
  );
}

function shownOnce(output: string, label: string): string {
  const value = new RegExp(`${label}[^:]*: (\\S+)`).exec(output)?.[1];
  if (!value) throw new Error(`no "${label}" in:\n${output}`);
  return value;
}

/** Compose: the plugin (`docker compose`) or Debian's Compose v1 (`docker-compose`), with its name. */
function composeTool(): { run: (...args: string[]) => Ran; name: string } {
  if (docker('compose', 'version').ok) return { run: (...args) => docker('compose', ...args), name: 'docker compose' };
  if (hasCommand('docker-compose'))
    return { run: (...args) => sh('docker-compose', args), name: 'docker-compose (Compose v1)' };
  throw new Error(
    'compose.yaml not checked: neither `docker compose` nor `docker-compose` is installed (apt-get install ' +
      'docker-compose)',
  );
}

/**
 * compose.yaml with .env.example filled in as its docker/compose.env (README "Run with Docker"):
 * validated, then `up` as a project of its own (the image just built, PostgreSQL from
 * postgres:15-bookworm, its init script making the owner and application roles), until migrate (as
 * the owner) has exited 0, the dashboard (as the application role) is healthy and the worker runs;
 * then `down` with its volume.
 */
async function composeUp(signingKeys: string): Promise<string> {
  const tool = composeTool();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-compose-'));
  const settings = {
    POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    COUNTERSIGN_OWNER_PASSWORD: randomBytes(12).toString('hex'),
    COUNTERSIGN_APP_PASSWORD: randomBytes(12).toString('hex'),
    AUTH_SECRET: randomBytes(33).toString('base64'),
    SIGNING_KEYS: signingKeys,
    COUNTERSIGN_TAG: IMAGE.split(':')[1]!,
    COUNTERSIGN_HTTP_PORT: String(PORT + 2),
  };
  fs.copyFileSync('compose.yaml', path.join(dir, 'compose.yaml'));
  // What compose.yaml mounts into PostgreSQL: the script that makes the owner and application roles.
  fs.cpSync('docker/postgres-init', path.join(dir, 'docker', 'postgres-init'), { recursive: true });
  const envFile = path.join(dir, 'docker', 'compose.env');
  fs.writeFileSync(
    envFile,
    `${fs.readFileSync('.env.example', 'utf8')}
${Object.entries(settings)
  .map(
    ([name, value]) => `${name}=${value}
`,
  )
  .join('')}`,
    { mode: 0o600 },
  );
  const compose = (...args: string[]) =>
    tool.run(
      '--project-directory',
      dir,
      '--env-file',
      envFile,
      '-f',
      path.join(dir, 'compose.yaml'),
      '-p',
      `countersign-test-${run}`,
      ...args,
    );
  const container = (service: string) => must(`finding the ${service} container`, compose('ps', '-q', service)).trim();
  try {
    must(`${tool.name} config`, compose('config', '-q'));
    must(`${tool.name} up`, compose('up', '--detach'));
    await until('compose: the dashboard healthy and the worker running', 180_000, () => {
      const dashboard = docker('inspect', container('dashboard'), '--format', '{{.State.Health.Status}}').out.trim();
      if (dashboard === 'unhealthy')
        throw new Error(`the compose dashboard is unhealthy:\n${compose('logs', '--no-color').out}`);
      return dashboard === 'healthy' && docker('logs', container('worker')).out.includes('worker running');
    });
    const migrated = docker(
      'inspect',
      container('migrate'),
      '--format',
      '{{.State.Status}} {{.State.ExitCode}}',
    ).out.trim();
    if (migrated !== 'exited 0') throw new Error(`the compose migrate service is "${migrated}", not exited 0`);
    return tool.name;
  } finally {
    compose('down', '--volumes', '--timeout', '20');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Proposes with the agent key, approves as the operator, and awaits `succeeded`: the proposal as the
 * agent reads it.
 */
async function throughTheContainers(
  key: string,
  password: string,
  body: { requestId: string; action: string; contractVersion: number; args: object; evidenceRefs: string[] },
): Promise<AgentProposalView> {
  const proposed = await fetch(`${APP}/api/v1/proposals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await proposed.json()) as {
    proposal?: { id: string; status: string; payloadHash: string };
    error?: { code: string };
  };
  const { proposal } = answer;
  if (proposed.status !== 201 || proposal?.status !== 'pending_approval')
    throw new Error(
      `proposing ${body.action} was answered ${proposed.status} ` +
        `(${proposal?.status ?? answer.error?.code ?? 'no proposal'})`,
    );
  const cookie = await sessionCookie(APP, 'ops@acme.test', password);
  if (!cookie) throw new Error('the operator could not sign in');
  const decided = await fetch(`${APP}/api/v1/proposals/${proposal.id}/decisions`, {
    method: 'POST',
    headers: { cookie, origin: APP, 'content-type': 'application/json' },
    body: JSON.stringify({ decision: 'approve', payloadHash: proposal.payloadHash }),
  });
  if (decided.status !== 200) throw new Error(`approving was answered ${decided.status}: ${await decided.text()}`);
  let view: AgentProposalView | undefined;
  await until(`proposal ${proposal.id} to succeed`, 60_000, async () => {
    const read = await fetch(`${APP}/api/v1/proposals/${proposal.id}`, { headers: { authorization: `Bearer ${key}` } });
    view = (await read.json()) as AgentProposalView;
    if (!['pending_approval', 'approved', 'executing', 'succeeded'].includes(view.status))
      throw new Error(`proposal ${proposal.id} ended ${view.status}`);
    return view.status === 'succeeded';
  });
  return view!;
}

/**
 * The README's "Your own action" against the image as built: the definition file applied with the
 * image's CLI, the team's resolver and executor started on the host, an agent key for the action,
 * then propose → approve → the worker container `POST`s the command to the team's executor.
 * Answers the receipt's deployment id.
 */
async function teamAction(envFile: string, password: string, start: () => ChildProcess): Promise<string> {
  const service = start();
  await until('the team service to listen', 60_000, async () => {
    if (service.exitCode !== null) throw new Error(`the team service exited ${service.exitCode}`);
    // Unsigned: it answers 401, which says it listens.
    const answer = await fetch(`${TEAM_SERVICE}/deployments/resolve`, { method: 'POST' }).catch(() => undefined);
    return answer?.status === 401;
  });
  const folder = path.resolve('scripts/examples/team-action');
  must(
    'actions:apply in the image',
    docker(
      ...['run', '--rm', '--network', 'host', '--env-file', envFile, '--volume', `${folder}:/team:ro`, IMAGE],
      ...['cli', 'actions:apply', '/team/deployment.json', '--tenant', 'acme', '--note', 'Deploys through Countersign'],
    ),
  );
  const key = shownOnce(
    oneShot(
      envFile,
      ...['cli', 'create-agent-key', 'acme', 'deploy-bot', '--actions', 'create_deployment'],
      ...['--grant', 'environments=staging'],
    ),
    'Key',
  );
  const view = await throughTheContainers(key, password, {
    requestId: `container-deploy-${randomBytes(4).toString('hex')}`,
    action: 'create_deployment',
    contractVersion: 1,
    args: { service: 'web', version: '1.4.2' },
    evidenceRefs: [],
  });
  const receipt = view.execution?.receipt as { deploymentId?: unknown } | null | undefined;
  if (typeof receipt?.deploymentId !== 'string' || !/^dep_\d+$/.test(receipt.deploymentId))
    throw new Error(`the receipt is not the team executor's: ${JSON.stringify(receipt)}`);
  return receipt.deploymentId;
}

async function main(): Promise<number> {
  const started = Date.now();
  const found = await engine();
  if (!found.ok) {
    console.log(`container test skipped: no docker engine (${found.reason})`);
    return 0;
  }
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    console.log(
      'container test skipped: DATABASE_URL is unset (it needs a PostgreSQL server to create a scratch database on)',
    );
    return 0;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-container-'));
  const envFile = path.join(work, 'settings.env');
  const database = scratchDatabase(baseUrl, 'container');
  let systems: ChildProcess | undefined;
  let team: ChildProcess | undefined;
  try {
    let phase = Date.now();
    must('scripts/ci/base-images.sh', sh('bash', ['scripts/ci/base-images.sh']));
    const baseSeconds = seconds(phase);
    phase = Date.now();
    // A proxy that re-signs TLS has its CA here; the build's npm needs it (build stage only).
    const caDir = '/usr/local/share/ca-certificates';
    const extraCa = fs.existsSync(caDir)
      ? fs
          .readdirSync(caDir)
          .filter((name) => name.endsWith('.crt'))
          .map((name) => fs.readFileSync(path.join(caDir, name), 'utf8'))
          .join('\n')
      : '';
    if (prebuilt) {
      try {
        must(
          'docker build --target prebuilt',
          docker(
            'build',
            '--quiet',
            '--target',
            'prebuilt',
            '--file',
            path.resolve('Dockerfile'),
            '--tag',
            IMAGE,
            prebuiltContext(),
          ),
        );
      } finally {
        fs.rmSync(CONTEXT, { recursive: true, force: true });
      }
    } else
      must(
        'docker build',
        docker(
          'build',
          '--network',
          'host',
          '--quiet',
          ...(extraCa ? ['--build-arg', `EXTRA_CA_CERTS=${extraCa}`] : []),
          '--tag',
          IMAGE,
          '.',
        ),
      );
    const buildSeconds = seconds(phase);
    const size = Number(docker('image', 'inspect', IMAGE, '--format', '{{.Size}}').out.trim());
    console.log(
      `base images ${baseSeconds} s, image built${prebuilt ? ' from the suite’s standalone build' : ''} ` +
        `in ${buildSeconds} s: ${IMAGE}, ${Math.round(size / 1e6)} MB`,
    );

    const refused = docker('run', '--rm', '--network', 'host', '--env', `PORT=${PORT}`, IMAGE, 'start');
    if (
      refused.ok ||
      !refused.out.includes('AUTH_SECRET is missing') ||
      !refused.out.includes('SIGNING_KEYS is missing')
    ) {
      throw new Error(`the image started without AUTH_SECRET and SIGNING_KEYS, or did not name them:\n${refused.out}`);
    }
    console.log('without AUTH_SECRET and SIGNING_KEYS the image refuses to start, naming both');

    await database.create();
    const credentials = { payments: randomBytes(16).toString('hex'), inventory: randomBytes(16).toString('hex') };
    fs.writeFileSync(envFile, `DATABASE_URL=${database.url}\n`, { mode: 0o600 });
    const signingKeys = oneShot(envFile, 'cli', 'signing-key').trim();
    const settings = {
      DATABASE_URL: database.url,
      AUTH_SECRET: randomBytes(33).toString('base64'),
      SIGNING_KEYS: signingKeys,
      SCOPE_CREDENTIALS: JSON.stringify(credentials),
      SYSTEMS_OF_RECORD_URL: `http://127.0.0.1:${SYSTEMS_PORT}`,
      PORT: String(PORT),
      WORKER_IN_PROCESS: '0',
      // The issuer of commands and request proofs, as the team's service checks it.
      APP_URL: APP,
      ACTION_ALLOWED_ORIGINS: TEAM_SERVICE,
    };
    fs.writeFileSync(
      envFile,
      Object.entries(settings)
        .map(([name, value]) => `${name}=${value}\n`)
        .join(''),
      { mode: 0o600 },
    );

    phase = Date.now();
    console.log(oneShot(envFile, 'migrate').trim());
    // Named acme because the demo systems of record keep their stock for a tenant of that id.
    oneShot(envFile, 'cli', 'create-tenant', 'acme', '--name', 'Acme');
    const password = shownOnce(oneShot(envFile, 'cli', 'create-user', 'ops@acme.test', '--name', 'Ops'), 'Password');
    oneShot(envFile, 'cli', 'grant', 'ops@acme.test', 'acme', 'approver');
    const agentKey = shownOnce(
      oneShot(
        envFile,
        'cli',
        'create-agent-key',
        'acme',
        'container-bot',
        '--actions',
        'hold_stock',
        '--grant',
        'warehouses=north',
      ),
      'Key',
    );
    console.log(`migrate and cli (tenant, operator, agent key) in ${seconds(phase)} s`);

    systems = spawn(process.execPath, ['--import', 'tsx', 'scripts/systems.ts', '--port', String(SYSTEMS_PORT)], {
      stdio: 'ignore',
      env: childEnvironment({ SCOPE_CREDENTIALS: settings.SCOPE_CREDENTIALS }),
    });
    await waitForHealth(
      `http://127.0.0.1:${SYSTEMS_PORT}/health`,
      { child: systems, name: 'the demo systems of record' },
      60_000,
    );

    phase = Date.now();
    must(
      'starting the dashboard',
      docker('run', '--detach', '--name', names.web, '--network', 'host', '--env-file', envFile, IMAGE, 'start'),
    );
    const health = () =>
      docker('inspect', names.web, '--format', '{{.State.Status}} {{.State.Health.Status}}').out.trim();
    await until('the dashboard container to be healthy', 180_000, () => {
      const state = health();
      if (!state.startsWith('running'))
        throw new Error(`the dashboard container is ${state}:\n${docker('logs', names.web).out}`);
      return state === 'running healthy';
    });
    console.log(`dashboard healthy (HEALTHCHECK) in ${seconds(phase)} s`);
    must(
      'starting the worker',
      docker('run', '--detach', '--name', names.worker, '--network', 'host', '--env-file', envFile, IMAGE, 'worker'),
    );
    await until('the worker to run', 60_000, () => docker('logs', names.worker).out.includes('worker running'));

    phase = Date.now();
    await throughTheContainers(agentKey, password, {
      requestId: `container-${run}`,
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
      evidenceRefs: ['ticket_message_73'],
    });
    console.log(`propose → approve → succeeded through the containers in ${seconds(phase)} s`);

    for (const name of [names.web, names.worker]) {
      const uid = must(`docker exec ${name} id -u`, docker('exec', name, 'id', '-u')).trim();
      if (uid === '0') throw new Error(`${name} runs as root`);
      console.log(`${name === names.web ? 'dashboard' : 'worker'} runs as uid ${uid}`);
    }
    const dispatched = /dispatched 1 command: 1 delivered/.exec(docker('logs', names.worker).out);
    if (!dispatched)
      throw new Error(`the worker's log does not show the dispatch:\n${docker('logs', names.worker).out}`);
    console.log(`the worker container ${dispatched[0]}`);

    phase = Date.now();
    const deployed = await teamAction(envFile, password, () => {
      team = spawn(process.execPath, ['--import', 'tsx', 'scripts/examples/team-action/service.ts'], {
        stdio: 'ignore',
        env: childEnvironment({ COUNTERSIGN_URL: APP }),
      });
      return team;
    });
    console.log(
      `a team's own action with no rebuild: actions:apply in the image, create_deployment proposed, approved and ` +
        `executed by the team's executor (${deployed}) in ${seconds(phase)} s`,
    );
    phase = Date.now();
    const tool = await composeUp(signingKeys);
    console.log(
      `compose.yaml valid and up (${tool}): postgres healthy → migrate exited 0 → dashboard healthy → worker ` +
        `running, in ${seconds(phase)} s`,
    );
    console.log(`container test passed in ${seconds(started)} s`);
    return 0;
  } finally {
    for (const name of Object.values(names)) docker('rm', '--force', name);
    systems?.kill('SIGTERM');
    team?.kill('SIGTERM');
    await database
      .drop()
      .catch((error: unknown) => console.error(`dropping ${database.name} failed: ${String(error)}`));
    fs.rmSync(work, { recursive: true, force: true });
    if (found.started) found.started.kill('SIGTERM');
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`container test FAILED: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
