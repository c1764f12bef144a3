/**
 * `npm run demo`: build when needed, migrate, seed the demo world and its notification channels,
 * start the systems of record, the notification receivers and the dashboard, print the URL and
 * sign-ins (also written to <data dir>/demo-credentials.json).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { openDatabase } from '@/db/client';
import { type DemoChannels, demoAllowedOrigins, seedDemoChannels } from '@/demo/channels';
import { dashboardAddress, describePortProblem, type PortNeed, sharedPorts, unavailablePorts } from '@/demo/ports';
import { startDemoReceivers } from '@/demo/receivers/start';
import { seedDemo } from '@/demo/seed';
import { startSystemsOfRecord } from '@/demo/systems/server';
import type { DemoCredentials } from '@/demo/world';
import { childEnvironment, env, SettingsError, systemsOfRecordUrl } from '@/lib/env';
import { warnIfOldNode } from '@/lib/node-version';
import { waitForHealth } from './shared/wait';

const root = process.cwd();
const step = (text: string) => console.log(`\n▸ ${text}`);

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

type DemoSecrets = { authSecret: string; signingKeys: string; scopeCredentials: Record<string, string> };

/** The demo keeps its generated secrets so sessions and keys survive restarts. */
async function demoSecrets(dataDir: string): Promise<DemoSecrets> {
  const file = path.join(dataDir, 'secrets.json');
  const existing = readJson<DemoSecrets>(file);
  if (existing?.authSecret && existing.signingKeys && existing.scopeCredentials) return existing;
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = {
    ...(await exportJWK(privateKey)),
    kid: `demo-${randomBytes(4).toString('hex')}`,
    alg: 'EdDSA',
    use: 'sig',
  };
  const secrets = {
    authSecret: randomBytes(33).toString('base64'),
    signingKeys: JSON.stringify([jwk]),
    scopeCredentials: {
      payments: `pay_${randomBytes(24).toString('base64url')}`,
      inventory: `inv_${randomBytes(24).toString('base64url')}`,
    },
  };
  fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

const SOURCES = [
  'app',
  'components',
  'lib',
  'db',
  'public',
  'proxy.ts',
  'instrumentation.ts',
  'next.config.ts',
  'package.json',
  'postcss.config.mjs',
];

function newestMtime(entry: string): number {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(entry).reduce((max, name) => Math.max(max, newestMtime(path.join(entry, name))), stat.mtimeMs);
}

function buildIfNeeded(): void {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  const built = fs.statSync(buildId, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const changed = Math.max(...SOURCES.map((entry) => newestMtime(path.join(root, entry))));
  if (built > changed) {
    step('Production build is up to date');
    return;
  }
  step(
    built
      ? 'Sources changed: rebuilding the dashboard (faster than the first build: Turbopack keeps its cache)…'
      : 'Building the dashboard for the first time (a few minutes; later builds reuse its cache)…',
  );
  // Without the type check (next.config.ts): `npm test` runs it on every change, the demo need not wait for it.
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'build'], {
    stdio: 'inherit',
    env: childEnvironment({ NEXT_TELEMETRY_DISABLED: '1', COUNTERSIGN_DEMO_BUILD: '1' }),
  });
  if (result.status !== 0) {
    console.error('The build failed; see the output above.');
    process.exit(result.status ?? 1);
  }
}

/** Every port the demo listens on, checked before anything is built, seeded or printed. */
async function refuseUnavailablePorts(needs: PortNeed[]): Promise<void> {
  const problems = [...sharedPorts(needs), ...(await unavailablePorts(needs)).map(describePortProblem)];
  if (problems.length === 0) return;
  console.error(`The demo cannot start:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  process.exit(1);
}

async function main() {
  warnIfOldNode();
  let settings;
  try {
    settings = env();
  } catch (error) {
    console.error(error instanceof SettingsError ? error.message : error);
    process.exit(1);
  }
  const dashboard = dashboardAddress(settings.HOST, settings.PORT);
  await refuseUnavailablePorts([
    { setting: 'PORT', what: 'the dashboard', port: settings.PORT, hosts: dashboard.hosts },
    {
      setting: 'DEMO_SYSTEMS_PORT',
      what: 'the demo systems of record',
      port: settings.DEMO_SYSTEMS_PORT,
      hosts: ['127.0.0.1'],
    },
    { setting: 'DEMO_MAIL_PORT', what: 'the demo mail catcher', port: settings.DEMO_MAIL_PORT, hosts: ['127.0.0.1'] },
    {
      setting: 'DEMO_SINK_PORT',
      what: 'the demo webhook and Slack sink',
      port: settings.DEMO_SINK_PORT,
      hosts: ['127.0.0.1'],
    },
  ]);
  const dataDir = path.resolve(settings.COUNTERSIGN_DATA_DIR);
  fs.mkdirSync(dataDir, { recursive: true });
  const url = settings.APP_URL ?? dashboard.url;
  const credentialsFile = path.join(dataDir, 'demo-credentials.json');
  // The webhook channel's signing secret is shown once: the demo keeps it to verify what arrives.
  const channelsFile = path.join(dataDir, 'demo-channels.json');
  const sinkUrl = `http://127.0.0.1:${settings.DEMO_SINK_PORT}`;
  // Notifications may reach exactly the demo's own sink and mail catcher on this machine.
  const allowedPrivateOrigins = demoAllowedOrigins(
    { sink: settings.DEMO_SINK_PORT, mail: settings.DEMO_MAIL_PORT },
    settings.NOTIFY_ALLOWED_PRIVATE_ORIGINS,
  );

  // The database before the build: a server that cannot be used is named at once, not after the build.
  step(
    settings.DATABASE_URL
      ? 'Migrating PostgreSQL and seeding the demo world…'
      : `Migrating the embedded database in ${dataDir} and seeding the demo world…`,
  );
  const handle = await openDatabase(settings.DATABASE_URL ? { url: settings.DATABASE_URL } : { dataDir });
  let credentials: DemoCredentials;
  let channels: DemoChannels;
  try {
    await handle.migrate();
    const secrets = await seedDemo(handle.db, readJson<DemoCredentials>(credentialsFile));
    credentials = { url, systemsOfRecordUrl: systemsOfRecordUrl(settings), ...secrets };
    channels = await seedDemoChannels(handle.db, sinkUrl, readJson<DemoChannels>(channelsFile), {
      allowedPrivateOrigins,
    });
  } finally {
    await handle.close();
  }
  fs.writeFileSync(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  fs.writeFileSync(channelsFile, `${JSON.stringify(channels, null, 2)}\n`, { mode: 0o600 });

  if (!process.argv.includes('--no-build')) buildIfNeeded();

  const secrets = await demoSecrets(dataDir);
  const scopeCredentials = settings.SCOPE_CREDENTIALS ?? secrets.scopeCredentials;
  step(
    `Starting the demo systems of record on port ${settings.DEMO_SYSTEMS_PORT}` +
      `${settings.DEMO_SCALE ? ` with ${settings.DEMO_SCALE} extra orders, SKUs and tickets` : ''}…`,
  );
  const systems = await startSystemsOfRecord({
    port: settings.DEMO_SYSTEMS_PORT,
    scale: settings.DEMO_SCALE,
    credentials: { payments: scopeCredentials.payments ?? '', inventory: scopeCredentials.inventory ?? '' },
    dataFile: path.join(dataDir, 'systems-of-record.json'),
    testMode: process.argv.includes('--systems-test-mode'),
  });
  step(
    `Starting the notification receivers: mail catcher on port ${settings.DEMO_MAIL_PORT}, webhook and Slack ` +
      `sink on port ${settings.DEMO_SINK_PORT}…`,
  );
  const receivers = await startDemoReceivers({
    sinkPort: settings.DEMO_SINK_PORT,
    mailPort: settings.DEMO_MAIL_PORT,
    appUrl: url,
  });
  receivers.sink.expectSecret('/webhook', channels.webhook.secret);
  step(`Starting the dashboard on ${settings.HOST} port ${settings.PORT}…`);
  const child = spawn(
    process.execPath,
    [path.join(root, 'node_modules/next/dist/bin/next'), 'start', '-p', String(settings.PORT), '-H', settings.HOST],
    {
      stdio: 'inherit',
      env: childEnvironment({
        COUNTERSIGN_DEMO: '1',
        COUNTERSIGN_DATA_DIR: dataDir,
        // Settings the person gave win; the demo's generated secrets fill the gaps.
        ...(settings.AUTH_SECRET ? {} : { AUTH_SECRET: secrets.authSecret }),
        ...(settings.SIGNING_KEYS ? {} : { SIGNING_KEYS: secrets.signingKeys }),
        ...(settings.SCOPE_CREDENTIALS ? {} : { SCOPE_CREDENTIALS: JSON.stringify(scopeCredentials) }),
        SYSTEMS_OF_RECORD_URL: settings.SYSTEMS_OF_RECORD_URL ?? systems.url,
        ...(settings.SMTP_URL ? {} : { SMTP_URL: receivers.mail.url }),
        NOTIFY_ALLOWED_PRIVATE_ORIGINS: allowedPrivateOrigins.join(','),
        APP_URL: url,
        NEXT_MANUAL_SIG_HANDLE: 'true',
        NEXT_TELEMETRY_DISABLED: '1',
      }),
    },
  );
  const stop = (signal: NodeJS.Signals) => {
    if (child.exitCode === null) child.kill(signal);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  child.on('exit', (code) => {
    void Promise.allSettled([systems.close(), receivers.close()]).finally(() => process.exit(code ?? 0));
  });

  await waitForHealth(`${url}/api/health`, { child, name: 'the server' }, 120_000);
  const notifications =
    'Notifications for acme: a signed webhook and a Slack-format message to the local sink, email to ' +
    'ops@acme.test and the approvers.';
  const email = settings.SMTP_URL
    ? 'leaves through your SMTP_URL'
    : `goes to the demo mail catcher at ${receivers.mail.url}`;
  console.log(`
Countersign is running at ${url}

Sign in as (passwords are also in ${path.relative(root, credentialsFile)}):
${credentials.people.map((p) => `  ${p.email.padEnd(18)} ${p.password.padEnd(20)} ${p.role} of ${p.tenant}`).join('\n')}

Agent keys (send as "Authorization: Bearer <key>" to POST ${url}/api/v1/proposals):
${credentials.agents.map((a) => `  ${a.name.padEnd(18)} ${a.key}`).join('\n')}

Systems of record (payments, inventory, tickets): ${systems.url}/ shows orders, refunds and holds.

${notifications}
  Watch them arrive at ${receivers.pageUrl} (as JSON: ${receivers.sink.url}/received.json).
  Email ${email}.

Press Ctrl+C to stop.`);
}

main().catch((error: unknown) => {
  console.error(`The demo could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
