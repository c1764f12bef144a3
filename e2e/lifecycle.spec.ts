import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { exportJWK, generateKeyPair } from 'jose';
import type { DemoCredentials } from '@/demo/world';
import { sessionCookie as signInForCookie } from '@/scripts/shared/session';
import { until, type Watched, waitForHealth } from '@/scripts/shared/wait';

// The server's own life: refusing to start on a bad configuration, shutting down cleanly, and
// starting again on the same data. No browser; real processes on the production build.

const root = process.cwd();
const NEXT_BIN = path.join(root, 'node_modules/next/dist/bin/next');

/** Our environment without anything that configures Countersign (the suite's own server, CI's DATABASE_URL). */
function cleanEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      /^(DATABASE_URL|AUTH_.*|NEXTAUTH_.*|SIGNING_KEYS|APP_URL|PORT|DEMO_[A-Z]+_PORT|SMTP_.*|OIDC_.*|COUNTERSIGN_.*|E2E_.*|NEXT_MANUAL_SIG_HANDLE|NODE_ENV)$/.test(
        name,
      )
    )
      continue;
    env[name] = value;
  }
  Object.assign(env, { NEXT_TELEMETRY_DISABLED: '1' }, settings);
  return env as NodeJS.ProcessEnv;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Free ports for a demo's notification receivers, so it never meets another demo's. */
async function receiverPorts() {
  return { DEMO_MAIL_PORT: String(await freePort()), DEMO_SINK_PORT: String(await freePort()) };
}

type Running = {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/** Starts a process in its own process group, so that it and anything it spawns can be killed. */
function start(args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** Kills the whole process group; a no-op once it is gone. */
function killGroup(running: Running | undefined) {
  if (!running?.child.pid) return;
  try {
    process.kill(-running.child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Resolves with the exit, or fails (naming what the process said) when it takes longer than `ms`. */
async function exitWithin(running: Running, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still running after ${ms} ms; output so far:\n${running.output()}`)),
      ms,
    );
  });
  try {
    return await Promise.race([running.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The demo as a wait watches it: a wait fails at once if it exits, showing what it said. */
const watched = (running: Running): Watched => ({ child: running.child, name: 'the demo', said: running.output });
const waitForDemo = (running: Running, url: string, ms: number) =>
  waitForHealth(`${url}/api/health`, watched(running), ms);

async function signingKeys(): Promise<string> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  return JSON.stringify([{ ...(await exportJWK(privateKey)), kid: 'e2e-lifecycle', alg: 'EdDSA', use: 'sig' }]);
}

test.describe('a production server refuses to start on a bad configuration', () => {
  const secret = 'e2e-lifecycle-secret-that-is-long-enough-0123456789';
  const CASES: {
    name: string;
    settings: () => Promise<Record<string, string>>;
    names: string;
    fix: RegExp;
    notNamed?: string;
  }[] = [
    {
      name: 'no AUTH_SECRET',
      settings: async () => ({}),
      names: 'AUTH_SECRET is missing',
      fix: /openssl rand -base64 33/,
    },
    {
      name: 'no SIGNING_KEYS',
      settings: async () => ({ AUTH_SECRET: secret }),
      names: 'SIGNING_KEYS is missing',
      fix: /npm run cli -- signing-key/,
      notNamed: 'AUTH_SECRET',
    },
    {
      name: 'a MySQL DATABASE_URL',
      settings: async () => ({ AUTH_SECRET: secret, SIGNING_KEYS: await signingKeys(), DATABASE_URL: 'mysql://x' }),
      names: 'DATABASE_URL must be a postgres:// or postgresql:// URL',
      fix: /unset it to use the embedded PGlite database/,
      notNamed: 'SIGNING_KEYS',
    },
  ];
  for (const { name, settings, names, fix, notNamed } of CASES) {
    test(`with ${name}`, async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-lifecycle-'));
      let server: Running | undefined;
      try {
        const port = await freePort();
        server = start(
          [NEXT_BIN, 'start', '-p', String(port)],
          cleanEnv({ NODE_ENV: 'production', COUNTERSIGN_DATA_DIR: dataDir, ...(await settings()) }),
        );
        const { code } = await exitWithin(server, 30_000);
        const output = server.output();
        expect(code, output).not.toBe(0);
        expect(code, output).not.toBeNull();
        expect(output).toContain('Countersign cannot start');
        expect(output).toContain(names);
        expect(output).toMatch(fix);
        if (notNamed) expect(output).not.toContain(notNamed);
        // It refused before opening the database.
        expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);
      } finally {
        killGroup(server);
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});

test('the demo shuts down cleanly on SIGTERM and starts again on the same data', async () => {
  test.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-lifecycle-'));
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const env = cleanEnv({
    PORT: String(port),
    DEMO_SYSTEMS_PORT: String(await freePort()),
    ...(await receiverPorts()),
    COUNTERSIGN_DATA_DIR: dataDir,
  });
  const credentialsFile = path.join(dataDir, 'demo-credentials.json');
  const lockFile = path.join(dataDir, 'pglite.lock');
  let demo: Running | undefined;
  try {
    demo = start(['--import', 'tsx', 'scripts/demo.ts', '--no-build'], env);
    await waitForDemo(demo, url, 90_000);
    expect(fs.existsSync(lockFile)).toBe(true);
    const firstCredentials = fs.readFileSync(credentialsFile, 'utf8');
    const { agents } = JSON.parse(firstCredentials) as DemoCredentials;
    const key = agents.find((agent) => agent.tenant === 'acme')!.key;
    const created = await fetch(`${url}/api/v1/proposals`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        requestId: `lifecycle-${Date.now()}`,
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku: 'filter-blue', quantity: 1 },
        evidenceRefs: [],
      }),
    });
    expect(created.status, demo.output()).toBe(201);
    const { proposal } = (await created.json()) as { proposal: { id: string; payloadHash: string } };

    demo.child.kill('SIGTERM');
    const stopped = await exitWithin(demo, 15_000);
    expect(stopped, demo.output()).toEqual({ code: 0, signal: null });
    expect(demo.output()).toContain('SIGTERM received, closing the database');
    expect(fs.existsSync(lockFile)).toBe(false);

    demo = start(['--import', 'tsx', 'scripts/demo.ts', '--no-build'], env);
    await waitForDemo(demo, url, 60_000);
    const read = await fetch(`${url}/api/v1/proposals/${proposal.id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(read.status, demo.output()).toBe(200);
    expect(await read.json()).toMatchObject({
      id: proposal.id,
      payloadHash: proposal.payloadHash,
      status: 'pending_approval',
    });
    // Seeding again kept every password and key.
    expect(fs.readFileSync(credentialsFile, 'utf8')).toBe(firstCredentials);

    demo.child.kill('SIGTERM');
    expect((await exitWithin(demo, 15_000)).code).toBe(0);
    expect(fs.existsSync(lockFile)).toBe(false);
  } finally {
    killGroup(demo);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Signs in through next-auth's own flow and returns the session cookie header. */
async function sessionCookie(url: string, email: string, password: string): Promise<string> {
  const session = await signInForCookie(url, email, password);
  expect(session, 'a session cookie after sign-in').toBeTruthy();
  return session!;
}

test('a crash between approval and dispatch delivers the command exactly once after restart', async () => {
  test.setTimeout(150_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-lifecycle-'));
  const port = await freePort();
  const systemsPort = await freePort();
  const url = `http://localhost:${port}`;
  const base = {
    PORT: String(port),
    DEMO_SYSTEMS_PORT: String(systemsPort),
    ...(await receiverPorts()),
    COUNTERSIGN_DATA_DIR: dataDir,
  };
  let demo: Running | undefined;
  try {
    // No worker: the approval commits its command and outbox row, and nothing delivers it yet.
    demo = start(['--import', 'tsx', 'scripts/demo.ts', '--no-build'], cleanEnv({ ...base, WORKER_IN_PROCESS: '0' }));
    await waitForDemo(demo, url, 90_000);
    const credentials = JSON.parse(
      fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8'),
    ) as DemoCredentials;
    const key = credentials.agents.find((agent) => agent.tenant === 'acme')!.key;
    const alice = credentials.people.find((person) => person.email === 'alice@acme.test')!;
    const created = await fetch(`${url}/api/v1/proposals`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        requestId: `crash-${Date.now()}`,
        action: 'issue_refund',
        contractVersion: 1,
        args: { orderId: 'ord_1842', amountMinor: 700, currency: 'USD', reason: 'Crash test' },
      }),
    });
    expect(created.status, demo.output()).toBe(201);
    const { proposal } = (await created.json()) as { proposal: { id: string; payloadHash: string } };
    const approved = await fetch(`${url}/api/v1/proposals/${proposal.id}/decisions`, {
      method: 'POST',
      headers: {
        cookie: await sessionCookie(url, alice.email, alice.password),
        origin: url,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ decision: 'approve', payloadHash: proposal.payloadHash }),
    });
    expect(approved.status, demo.output()).toBe(200);
    expect(((await approved.json()) as { status: string }).status).toBe('approved');

    const holder = Number(fs.readFileSync(path.join(dataDir, 'pglite.lock'), 'utf8'));
    killGroup(demo);
    await exitWithin(demo, 15_000);
    // The server (a child of the demo command) dies with its group; wait until it is really gone.
    await until(`the server (pid ${holder}) to be gone`, 15_000, () => !isAlive(holder), { pollMs: 100 });

    demo = start(['--import', 'tsx', 'scripts/demo.ts', '--no-build'], cleanEnv(base));
    await waitForDemo(demo, url, 90_000);
    const succeeded = async () => {
      const read = await fetch(`${url}/api/v1/proposals/${proposal.id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return ((await read.json()) as { status: string }).status === 'succeeded';
    };
    await until(`proposal ${proposal.id} to succeed`, 45_000, succeeded, { watched: watched(demo) });
    const order = (await (await fetch(`http://127.0.0.1:${systemsPort}/orders/ord_1842`)).json()) as {
      refunds: { idempotencyKey: string; amountMinor: number }[];
    };
    expect(order.refunds.filter((refund) => refund.idempotencyKey === `cs.${proposal.id}`)).toEqual([
      expect.objectContaining({ amountMinor: 700 }),
    ]);
    expect(order.refunds).toHaveLength(1);
  } finally {
    killGroup(demo);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
