import { defineConfig } from '@playwright/test';

// scripts/e2e.ts prepares a fresh data folder (and a fresh PostgreSQL database when DATABASE_URL
// is set) and passes them here; the server is the production build, started by the demo command.
// Two workers share the one server. Specs that need no browser (API_SPECS) run as their own project
// beside the browser ones, and a spec of either reads only what it made (its proposals by id, its
// own agent's queue, an order's numbers read back), so the other worker's work never shows in it.
// EXCLUSIVE_SPECS run afterwards, one file at a time.
const WORKERS = 2;
const spec = (names: string[]) => names.map((name) => `${name}.spec.ts`);
const API_SPECS = spec(['access', 'cli', 'examples', 'lifecycle', 'mcp', 'mcp-conformance', 'operator-bodies']);
// Specs that change what every other spec meets (contract rollout, routing policies, the emergency
// stop, required passkeys, standing grants, notification settings, the sign-in throttle, a fault
// injected into the payments system); that read a whole tenant (its queue's order or its newest
// proposals, every message the notification receivers got, its audit chain's head, globex's
// ord_9001 as nobody else touches it); or that take the README's pictures.
const EXCLUSIVE_SPECS = spec([
  'admin-contracts',
  'admin-policies',
  'evidence',
  'evidence-resolver',
  'execution',
  'executions-pause',
  'grants',
  'hardening',
  'notifications-demo',
  'notifications-settings',
  'oidc',
  'openapi',
  'passkeys',
  'passkeys-setting',
  'proposal-page',
  'proposals-list',
  'queue',
  'screenshots',
  'stale',
]);

const port = Number(process.env.E2E_PORT ?? 3210);
const dataDir = process.env.E2E_DATA_DIR ?? '.data/e2e';
// A real OpenID Connect provider (e2e/oidc-provider.ts) for the single sign-on tests. The issuer
// must be spelled exactly as the provider's discovery document reports it.
const oidcPort = Number(process.env.E2E_OIDC_PORT ?? 3211);
const oidcEnv: Record<string, string> = {
  OIDC_ISSUER: `http://localhost:${oidcPort}`,
  OIDC_CLIENT_ID: 'countersign-e2e',
  OIDC_CLIENT_SECRET: 'e2e-client-secret-not-for-production-use',
  OIDC_NAME: 'Test IdP',
};
// The demo systems of record run inside the demo command, in test mode so faults can be injected.
const systemsPort = Number(process.env.E2E_SYSTEMS_PORT ?? port + 2);
// Its notification receivers (mail catcher, webhook and Slack sink) next to it, so parallel runs on
// other ports never share them (e2e/notifications-demo.spec.ts reads the sink on port + 4).
const serverEnv: Record<string, string> = {
  PORT: String(port),
  DEMO_SYSTEMS_PORT: String(systemsPort),
  DEMO_MAIL_PORT: String(port + 3),
  DEMO_SINK_PORT: String(port + 4),
  // The specs' own webhook sink (e2e/support.ts E2E_SINK_PORT); the demo adds its receivers.
  NOTIFY_ALLOWED_PRIVATE_ORIGINS: `http://127.0.0.1:${port + 5}`,
  // The origin declared actions name for their resolver and executor (publishing refuses any other): the
  // README's own action (scripts/examples/team-action, run by e2e/examples.spec.ts) and the Contracts page's.
  ACTION_ALLOWED_ORIGINS: 'http://127.0.0.1:4795',
  // Email goes to the demo's mail catcher even when the shell running the tests has an SMTP_URL.
  SMTP_URL: '',
  COUNTERSIGN_DATA_DIR: dataDir,
  ...oidcEnv,
  ...(process.env.E2E_DATABASE_URL ? { DATABASE_URL: process.env.E2E_DATABASE_URL } : {}),
};

export default defineConfig({
  testDir: './e2e',
  // A spec file runs in one worker, its tests in order; files are spread over the workers.
  fullyParallel: false,
  workers: WORKERS,
  projects: [
    { name: 'api', testMatch: API_SPECS },
    { name: 'browser', testIgnore: [...API_SPECS, ...EXCLUSIVE_SPECS] },
    // After the other two, one file at a time: nothing else runs while these change what every spec sees.
    { name: 'exclusive', testMatch: EXCLUSIVE_SPECS, dependencies: ['api', 'browser'], workers: 1 },
  ],
  forbidOnly: true,
  retries: 0,
  // Two cores shared by the server, the workers and the browser: generous per-test time, so a busy
  // machine slows the suite down instead of failing it.
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  // Per server port: two runs side by side (on other ports) must not clear each other's traces.
  outputDir: `test-results/port-${port}`,
  use: {
    baseURL: `http://localhost:${port}`,
    // npm test turns traces off (E2E_TRACE=off): recording one costs every test, passing or not.
    trace: process.env.E2E_TRACE === 'off' ? 'off' : 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  webServer: [
    {
      name: 'oidc',
      command: 'node --import tsx e2e/oidc-provider.ts',
      url: `http://localhost:${oidcPort}/.well-known/openid-configuration`,
      env: {
        E2E_OIDC_PORT: String(oidcPort),
        E2E_PORT: String(port),
        OIDC_CLIENT_ID: oidcEnv.OIDC_CLIENT_ID!,
        OIDC_CLIENT_SECRET: oidcEnv.OIDC_CLIENT_SECRET!,
      },
      reuseExistingServer: false,
      timeout: 30_000,
      gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      name: 'app',
      command: 'node --import tsx scripts/demo.ts --no-build --systems-test-mode',
      url: `http://localhost:${port}/api/health`,
      env: serverEnv,
      reuseExistingServer: false,
      timeout: 120_000,
      gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});
