import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY_POINTS, freePorts, start } from './start-failures';

// How Countersign fails to start, as a person starting it sees it: the real scripts in their own
// processes. Each failure is found before any migration, seeding or build, so each run takes seconds.

let dataDir = '';
beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-start-'));
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('npm run demo with a port in use', () => {
  // What a demo that went ahead would print: the remembered sign-ins and keys of a previous run.
  const SECRETS = {
    password: 'remembered-password-5b1e',
    agentKey: 'csk_remembered_agent_key_77d0',
    authSecret: 'remembered-auth-secret-of-at-least-32-chars-1c9a',
    scope: 'pay_remembered_scope_credential_e41f',
  };
  const credentials = {
    url: 'http://localhost:3000',
    systemsOfRecordUrl: 'http://127.0.0.1:4010',
    people: [{ email: 'alice@acme.test', password: SECRETS.password, tenant: 'acme', role: 'approver' }],
    agents: [{ tenant: 'acme', name: 'support-bot', key: SECRETS.agentKey, actions: ['refund_payment'] }],
  };
  const secrets = {
    authSecret: SECRETS.authSecret,
    signingKeys: '[]',
    scopeCredentials: { payments: SECRETS.scope, inventory: SECRETS.scope },
  };

  /** Another server on the port, answering /api/health as a running Countersign would. */
  let other: http.Server;
  let taken = 0;
  beforeAll(async () => {
    fs.writeFileSync(path.join(dataDir, 'demo-credentials.json'), JSON.stringify(credentials));
    fs.writeFileSync(path.join(dataDir, 'secrets.json'), JSON.stringify(secrets));
    other = http.createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'),
    );
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    taken = (other.address() as import('node:net').AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => other.close(() => resolve())));

  it.each([
    ['PORT', 'the dashboard'],
    ['DEMO_SINK_PORT', 'the demo webhook and Slack sink'],
  ])(
    '%s taken: says which port and how to choose another, exits 1, and prints no credential',
    async (setting, what) => {
      const run = await start(ENTRY_POINTS[0]!, { COUNTERSIGN_DATA_DIR: dataDir, [setting]: String(taken) });
      const output = `${run.stdout}${run.stderr}`;
      expect(run.code, output).toBe(1);
      expect(run.stderr).toContain(`Port ${taken} (${setting}, ${what}) is already in use on 127.0.0.1:${taken}.`);
      expect(run.stderr).toContain(`choose another port: ${setting}=${taken + 100} npm run demo`);
      for (const secret of Object.values(SECRETS)) expect(output).not.toContain(secret);
      expect(output).not.toContain('Countersign is running');
      // Checked before anything else: no database was opened, nothing was migrated or seeded.
      expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(false);
      expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8'))).toEqual(credentials);
    },
  );
});

describe('a refused database connection', () => {
  const PASSWORD = 'db-password-never-shown-3f6a';

  it.each(ENTRY_POINTS.map((entry) => [entry.name, entry] as const))(
    '%s names it, shows the URL without its password, and exits 1',
    async (_name, entry) => {
      const [closed] = await freePorts(1);
      const run = await start(entry, {
        COUNTERSIGN_DATA_DIR: dataDir,
        DATABASE_URL: `postgres://countersign:${PASSWORD}@127.0.0.1:${closed}/countersign`,
      });
      const output = `${run.stdout}${run.stderr}`;
      expect(run.code, output).toBe(1);
      expect(run.stderr).toContain(
        `Countersign cannot use the database at postgres://countersign:***@127.0.0.1:${closed}/countersign: connection refused`,
      );
      expect(output).not.toContain(PASSWORD);
      expect(output).not.toContain('Failed query');
    },
  );
});
