/**
 * The processes the resilience script runs: the demo (scripts/demo.ts, systems of record in test
 * mode), and for the SIGKILL phase the systems of record (scripts/systems.ts) and `next start` as
 * separate processes, so that killing the server leaves the systems of record running.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { demoAllowedOrigins } from '@/demo/channels';
import { childEnvironment } from '@/lib/env';
import { memoryOfTree } from '@/scripts/shared/proc';

export type Ports = { app: number; systems: number; mail: number; sink: number };

/** A process of the run; when it fails, what it said is in its log file. */
export type Running = { child: ChildProcess; name: string; logFile: string; said: () => string };

const root = process.cwd();

function launch(name: string, args: string[], env: Record<string, string>, logFile: string): Running {
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, args, { stdio: ['ignore', log, log], env: childEnvironment(env) });
  fs.closeSync(log);
  return { child, name, logFile, said: () => `see ${logFile}` };
}

/** Settings every Countersign server of the run gets: loopback URL, its database, no agent limiter. */
function serverEnvironment(ports: Ports, dataDir: string, databaseUrl: string): Record<string, string> {
  return {
    PORT: String(ports.app),
    APP_URL: `http://127.0.0.1:${ports.app}`,
    COUNTERSIGN_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    // As scripts/demo.ts sets it: only the demo's own receivers are reachable private targets.
    NOTIFY_ALLOWED_PRIVATE_ORIGINS: demoAllowedOrigins(ports).join(','),
    // The per-key limit (1200/min by default) would refuse the bursts with 429, which is not what is tested.
    AGENT_RATE_LIMIT_PER_MINUTE: '9999999',
  };
}

/**
 * `scripts/demo.ts --no-build --systems-test-mode`: seeds, starts the systems of record (test mode), receivers and
 * `next start`.
 */
export function startDemo(ports: Ports, dataDir: string, databaseUrl: string, scale: number): Running {
  return launch(
    'demo',
    ['--import', 'tsx', 'scripts/demo.ts', '--no-build', '--systems-test-mode'],
    {
      ...serverEnvironment(ports, dataDir, databaseUrl),
      DEMO_SYSTEMS_PORT: String(ports.systems),
      DEMO_MAIL_PORT: String(ports.mail),
      DEMO_SINK_PORT: String(ports.sink),
      DEMO_SCALE: String(scale),
    },
    path.join(dataDir, 'demo.log'),
  );
}

type DemoSecrets = { authSecret: string; signingKeys: string; scopeCredentials: Record<string, string> };

function demoSecrets(dataDir: string): DemoSecrets {
  return JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as DemoSecrets;
}

/** The demo systems of record alone, in test mode, on the demo's data file (so the ledger carries over). */
export function startSystems(ports: Ports, dataDir: string, scale: number): Running {
  return launch(
    'systems',
    [
      '--import',
      'tsx',
      'scripts/systems.ts',
      '--test-mode',
      '--data-file',
      path.join(dataDir, 'systems-of-record.json'),
      '--port',
      String(ports.systems),
    ],
    { DEMO_SCALE: String(scale), SCOPE_CREDENTIALS: JSON.stringify(demoSecrets(dataDir).scopeCredentials) },
    path.join(dataDir, 'systems.log'),
  );
}

/** `next start` directly, with the settings scripts/demo.ts gives it (the demo's kept secrets). */
export function startServer(ports: Ports, dataDir: string, databaseUrl: string): Running {
  const secrets = demoSecrets(dataDir);
  return launch(
    'server',
    [path.join(root, 'node_modules/next/dist/bin/next'), 'start', '-p', String(ports.app)],
    {
      ...serverEnvironment(ports, dataDir, databaseUrl),
      COUNTERSIGN_DEMO: '1',
      AUTH_SECRET: secrets.authSecret,
      SIGNING_KEYS: secrets.signingKeys,
      SCOPE_CREDENTIALS: JSON.stringify(secrets.scopeCredentials),
      SYSTEMS_OF_RECORD_URL: `http://127.0.0.1:${ports.systems}`,
      NEXT_MANUAL_SIG_HANDLE: 'true',
      NEXT_TELEMETRY_DISABLED: '1',
    },
    path.join(dataDir, 'server.log'),
  );
}

/** Stops a process with SIGTERM and waits for it (SIGKILL after 15 s). */
export async function stop(running: Running | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** SIGKILL, no chance to finish anything; resolves once the process is gone. */
export async function kill(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGKILL');
  await exited;
}

/** Current resident set (VmRSS, not the peak) of a process and its descendants, in MB. */
export function residentMb(rootPid: number): number {
  return memoryOfTree(rootPid, 'VmRSS').reduce((sum, process) => sum + process.mb, 0);
}
