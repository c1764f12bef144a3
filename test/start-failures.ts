import net from 'node:net';
import { type CliRun, runNode } from './cli';

/**
 * Countersign's entry points as a person starts them, each in a process of its own, for the tests
 * of how they fail (test/start-failures*.int.test.ts): every one must say what is wrong and exit 1.
 */

/** Settings of ours the test runner's environment may carry; each run starts without them. */
const OUR_SETTINGS = [
  'DATABASE_URL',
  'COUNTERSIGN_DATA_DIR',
  'COUNTERSIGN_DEMO',
  'AUTH_SECRET',
  'SIGNING_KEYS',
  'SCOPE_CREDENTIALS',
  'APP_URL',
  'HOST',
  'PORT',
  'DEMO_SYSTEMS_PORT',
  'DEMO_MAIL_PORT',
  'DEMO_SINK_PORT',
  'DEMO_SCALE',
  'SYSTEMS_OF_RECORD_URL',
  'SMTP_URL',
  'NOTIFY_ALLOWED_PRIVATE_ORIGINS',
  'OIDC_ISSUER',
  'OIDC_CLIENT_ID',
  'OIDC_CLIENT_SECRET',
  'WORKER_IN_PROCESS',
  'NEXT_RUNTIME',
];

export type EntryPoint = { name: string; args: string[]; env?: Record<string, string> };

/** Each entry point whose first query is the database's: all four name a failure the same way. */
export const ENTRY_POINTS: EntryPoint[] = [
  { name: 'npm run demo', args: ['scripts/demo.ts', '--no-build'] },
  // What `next start` runs at start, without a production build: instrumentation.ts's register().
  {
    name: 'npm start (instrumentation.ts)',
    args: [
      '--input-type=module',
      '-e',
      "const m = await import('./instrumentation.ts'); await (m.register ?? m.default.register)();",
    ],
    env: { NEXT_RUNTIME: 'nodejs', AUTH_SECRET: 'a-test-secret-of-at-least-32-characters' },
  },
  { name: 'npm run worker', args: ['scripts/worker.ts'] },
  { name: 'npm run cli', args: ['scripts/cli.ts', 'list-channels', 'acme'] },
];

/** Runs an entry point with only `settings` of ours (a fresh data folder, demo ports that are free unless given). */
export async function start(entry: EntryPoint, settings: Record<string, string>): Promise<CliRun> {
  const cleared = Object.fromEntries(OUR_SETTINGS.map((name) => [name, undefined]));
  const ports = await freePorts(4);
  const demoPorts = Object.fromEntries(
    ['PORT', 'DEMO_SYSTEMS_PORT', 'DEMO_MAIL_PORT', 'DEMO_SINK_PORT'].map((name, index) => [
      name,
      String(ports[index]),
    ]),
  );
  return runNode(entry.args, { ...cleared, ...demoPorts, ...entry.env, ...settings });
}

/** `count` different ports nothing listens on now (the system's choice, all held until each is known, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => net.createServer());
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  return ports;
}
