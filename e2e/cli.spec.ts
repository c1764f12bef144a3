import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { cli } from './cli-runner';

// The administration CLI as an operator runs it: a real process on a fresh embedded database,
// checked by exit code (0 done, 1 refused, 2 usage error) and by what it tells the person.

test.describe('the administration CLI', () => {
  test.describe.configure({ mode: 'serial' });
  let dataDir = '';
  test.beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-cli-'));
  });
  test.afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const USAGE_ERRORS: { args: string[]; says: string; viaNpm?: boolean }[] = [
    { args: [], says: 'Error: no command given', viaNpm: true },
    { args: ['frobnicate'], says: 'Error: unknown command "frobnicate"', viaNpm: true },
    {
      args: ['grant', 'ops@acme.test', 'acme-e2e', 'boss'],
      says: 'Error: role must be one of viewer, approver, admin',
    },
    { args: ['create-tenant', 'x', '--colour', 'red'], says: "Unknown option '--colour'" },
    { args: ['policy:plan', 'draft.json'], says: 'Error: missing --tenant' },
    {
      args: ['policy:plan', 'draft.json', '--tenant', 'acme-e2e', '--days', '400'],
      says: 'Error: --days takes a whole number of days from 1 to 365',
    },
  ];
  test('usage errors exit 2 with the reason and the usage', async () => {
    for (const { args, says, viaNpm } of USAGE_ERRORS) {
      const result = await cli(dataDir, args, { viaNpm });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(says);
      expect(`${result.stdout}${result.stderr}`).toContain('Usage: npm run cli -- <command> [options]');
    }
  });

  // Run in order on one database: each row's outcome depends on the rows before it.
  const STEPS: { args: string[]; stdin?: string; code: 0 | 1; says: string }[] = [
    { args: ['create-tenant', 'acme-e2e', '--name', 'Acme E2E'], code: 0, says: 'Created tenant acme-e2e (Acme E2E).' },
    { args: ['create-tenant', 'acme-e2e'], code: 1, says: 'Error: Tenant "acme-e2e" already exists.' },
    { args: ['create-tenant', 'Bad_Id'], code: 1, says: 'Error: A tenant id is 2–40 characters of a–z, 0–9 and "-"' },
    {
      args: ['create-user', 'short@acme.test', '--name', 'Short', '--password-stdin'],
      stdin: 'short\n',
      code: 1,
      says: 'Error: A password needs at least 12 characters.',
    },
    {
      args: ['create-user', 'chosen@acme.test', '--name', 'Chosen', '--password-stdin'],
      stdin: 'a chosen password, long enough\n',
      code: 0,
      says: 'Created user chosen@acme.test',
    },
    {
      args: ['grant', 'nobody@acme.test', 'acme-e2e', 'approver'],
      code: 1,
      says: 'Error: No user with email nobody@acme.test; create the user first.',
    },
    { args: ['grant', 'chosen@acme.test', 'nowhere', 'approver'], code: 1, says: 'Error: No tenant "nowhere".' },
    {
      args: ['grant', 'chosen@acme.test', 'acme-e2e', 'approver'],
      code: 0,
      says: 'chosen@acme.test is now approver of acme-e2e.',
    },
  ];
  test('accounts: exit 0 when done, 1 with the reason when refused', async () => {
    test.setTimeout(240_000);
    for (const { args, stdin, code, says } of STEPS) {
      const result = await cli(dataDir, args, { stdin });
      expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(code);
      expect(code === 0 ? result.stdout : result.stderr).toContain(says);
      // A password given on stdin is never echoed.
      if (stdin) expect(`${result.stdout}${result.stderr}`).not.toContain(stdin.trim());
    }
  });

  test('create-user prints a generated password exactly once', async () => {
    const result = await cli(dataDir, ['create-user', 'ops@acme.test', '--name', 'Ops']);
    expect(result.code, result.stderr).toBe(0);
    const match = result.stdout.match(/^Password \(shown once\): (\S+)$/m);
    expect(match).not.toBeNull();
    const password = match![1]!;
    expect(password.length).toBeGreaterThanOrEqual(12);
    expect(result.stdout.split(password)).toHaveLength(2);
    const again = await cli(dataDir, ['create-user', 'ops@acme.test', '--name', 'Ops']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Error: A user with email ops@acme.test already exists.');
    expect(again.stdout).not.toContain('Password');
  });

  test('create-agent-key prints a key once; revoking works once', async () => {
    const created = await cli(dataDir, [
      'create-agent-key',
      'acme-e2e',
      'support-bot',
      '--actions',
      'hold_stock',
      '--grant',
      'warehouses=north',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.match(/^Created agent key (\S+) for support-bot in acme-e2e\.$/m)?.[1];
    const key = created.stdout.match(/^Key \(shown once, store it now\): (\S+)$/m)?.[1];
    expect(id).toMatch(/^key_/);
    expect(key).toMatch(/^cs_agent_[A-Za-z0-9_-]{43}$/);
    expect(created.stdout.split(key!)).toHaveLength(2);

    const unknownAction = await cli(dataDir, ['create-agent-key', 'acme-e2e', 'bot', '--actions', 'launch_rocket']);
    expect(unknownAction.code).toBe(2);
    expect(unknownAction.stderr).toContain('unknown action(s): launch_rocket');

    const revoked = await cli(dataDir, ['revoke-agent-key', id!]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`Revoked ${id} (support-bot in acme-e2e).`);
    const again = await cli(dataDir, ['revoke-agent-key', id!]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Error: No active agent key with id ${id}.`);
  });

  test('refuses while another live process holds the embedded database, proceeds once it is gone', async () => {
    const lockFile = path.join(dataDir, 'pglite.lock');
    // This test runner is a live process: it stands in for a running dashboard.
    fs.writeFileSync(lockFile, String(process.pid));
    try {
      const refused = await cli(dataDir, ['create-tenant', 'while-locked']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`is open in another process (pid ${process.pid})`);
      expect(refused.stderr).toContain(
        'stop that process (the running dashboard), or run against PostgreSQL by setting DATABASE_URL',
      );
      expect(fs.readFileSync(lockFile, 'utf8')).toBe(String(process.pid));
    } finally {
      fs.rmSync(lockFile, { force: true });
    }
    // A lock left by a process that has died is stale: the CLI takes over and cleans up after itself.
    const dead = spawn(process.execPath, ['-e', '']);
    const deadPid = dead.pid!;
    await new Promise((resolve) => dead.on('exit', resolve));
    fs.writeFileSync(lockFile, String(deadPid));
    const proceeded = await cli(dataDir, ['create-tenant', 'after-lock']);
    expect(proceeded.code, proceeded.stderr).toBe(0);
    expect(proceeded.stdout).toContain('Created tenant after-lock');
    expect(fs.existsSync(lockFile)).toBe(false);
  });
});

test.describe('notification channels from the CLI', () => {
  test.describe.configure({ mode: 'serial' });
  let dataDir = '';
  test.beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-cli-channels-'));
    const created = await cli(dataDir, ['create-tenant', 'acme-e2e']);
    expect(created.code, created.stderr).toBe(0);
  });
  test.afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const listed = async () => {
    const result = await cli(dataDir, ['list-channels', 'acme-e2e']);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };

  // Each refusal names the flag and the problem, exits 1 and creates nothing.
  const REFUSALS: { args: string[]; says: string }[] = [
    {
      args: ['--tenant', 'acme-e2e', '--kind', 'pager', '--target', 'https://hooks.example/x'],
      says: 'Error: --kind must be webhook, slack or email (got "pager")',
    },
    {
      args: ['--tenant', 'acme-e2e', '--kind', 'webhook', '--target', 'ftp://files.example/in'],
      says: 'Error: --target of a webhook channel must be an http(s) URL',
    },
    {
      args: ['--tenant', 'acme-e2e', '--kind', 'email', '--target', 'https://hooks.example/x'],
      says: 'Error: --target of an email channel must be an email address like ops@example.com',
    },
    {
      args: [
        '--tenant',
        'acme-e2e',
        '--kind',
        'slack',
        '--target',
        'https://hooks.example/x',
        '--events',
        'proposal.waiting,proposal.exploded',
      ],
      says: 'Error: --events: "proposal.exploded" is not a notification event (known: proposal.waiting,',
    },
    {
      args: ['--tenant', 'nowhere', '--kind', 'email', '--target', 'ops@acme.test'],
      says: 'Error: No tenant "nowhere".',
    },
    {
      args: ['--tenant', 'acme-e2e', '--kind', 'email', '--target', 'ops@acme.test', '--digest', '101'],
      says: 'Error: --digest must be a whole number from 0 (off) to 100',
    },
  ];
  test('add-channel refuses bad input with exit 1 and a specific message, creating nothing', async () => {
    test.setTimeout(240_000);
    for (const { args, says } of REFUSALS) {
      const result = await cli(dataDir, ['add-channel', ...args]);
      expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(1);
      expect(result.stderr).toContain(says);
      expect(result.stdout).not.toContain('Created');
    }
    expect(await listed()).toContain('No notification channels in acme-e2e.');
  });

  test('add-channel without --target is a usage error (exit 2)', async () => {
    const result = await cli(dataDir, ['add-channel', '--tenant', 'acme-e2e', '--kind', 'webhook']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Error: missing --target');
    // The usage names the command's options, its optional ones on the line below.
    expect(result.stderr).toMatch(
      /add-channel --tenant <id> --kind <webhook\|slack\|email> --target <url-or-address>\s+\[--events <a,b>\] \[--digest <0-100>\]/,
    );
    expect(await listed()).toContain('No notification channels in acme-e2e.');
  });

  test('add-channel creates each kind; a webhook secret is printed once and never listed', async () => {
    test.setTimeout(240_000); // five CLI processes beside the other worker
    const webhook = await cli(dataDir, [
      'add-channel',
      '--tenant',
      'acme-e2e',
      '--kind',
      'webhook',
      '--target',
      'https://hooks.example/countersign',
      '--events',
      'proposal.waiting,proposal.decided',
    ]);
    expect(webhook.code, webhook.stderr).toBe(0);
    const webhookId = webhook.stdout.match(/^Created webhook channel (chn_\S+) in acme-e2e\.$/m)?.[1];
    expect(webhookId).toBeTruthy();
    expect(webhook.stdout).toContain('  target: https://hooks.example/countersign');
    expect(webhook.stdout).toContain('  events: proposal.waiting, proposal.decided');
    expect(webhook.stdout).toContain('  digest: more than 5 messages within a minute go as one');
    const secret = webhook.stdout.match(/^Signing secret \(shown once, store it now\): (\S+)$/m)?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhook.stdout.split(secret!)).toHaveLength(2);
    expect(webhook.stdout).toContain('It is not shown again');

    const slack = await cli(dataDir, [
      'add-channel',
      '--tenant',
      'acme-e2e',
      '--kind',
      'slack',
      '--target',
      'https://hooks.slack.com/services/T000/B000/abcdSECRETwxyz',
    ]);
    expect(slack.code, slack.stderr).toBe(0);
    expect(slack.stdout).toMatch(/^Created slack channel chn_\S+ in acme-e2e\.$/m);
    expect(slack.stdout).toContain('  events: proposal.waiting, proposal.reminder');
    expect(slack.stdout).not.toContain('whsec_');

    const email = await cli(dataDir, [
      'add-channel',
      '--tenant',
      'acme-e2e',
      '--kind',
      'email',
      '--target',
      'ops@acme.test',
      '--events',
      'proposal.waiting',
      '--digest',
      '0',
    ]);
    expect(email.code, email.stderr).toBe(0);
    expect(email.stdout).toContain('  digest: never');
    expect(email.stdout).toMatch(/^Created email channel chn_\S+ in acme-e2e\.$/m);
    expect(email.stdout).toContain('  target: ops@acme.test');
    expect(email.stdout).not.toContain('whsec_');

    const list = await listed();
    expect(list).toContain(`${webhookId}  webhook enabled   https://hooks.example/countersign`);
    expect(list).toContain('email   enabled   ops@acme.test');
    // The Slack URL is itself a credential: listed only in part; the webhook secret never.
    expect(list).toContain('slack   enabled   https://hooks.slack.com/…wxyz');
    expect(list).not.toContain('abcdSECRET');
    expect(list).not.toContain('whsec_');
    expect(list).not.toContain(secret!);

    const unknown = await cli(dataDir, ['list-channels', 'nowhere']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Error: No tenant "nowhere".');
  });
});

test.describe('the emergency stop from the CLI', () => {
  let dataDir = '';
  test.beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-cli-stop-'));
    const created = await cli(dataDir, ['create-tenant', 'acme-e2e']);
    expect(created.code, created.stderr).toBe(0);
  });
  test.afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  // In order on one database: pausing twice and resuming twice each change something once.
  const STEPS: { args: string[]; code: 0 | 1 | 2; says: string }[] = [
    {
      args: ['executions:pause', '--tenant', 'acme-e2e', '--reason', 'Suspected leaked key'],
      code: 0,
      says: 'Executions in acme-e2e are now paused.',
    },
    {
      args: ['executions:pause', '--tenant', 'acme-e2e'],
      code: 0,
      says: 'Executions in acme-e2e were already paused; nothing changed.',
    },
    { args: ['executions:resume', '--tenant', 'acme-e2e'], code: 0, says: 'Executions in acme-e2e are now running.' },
    {
      args: ['executions:resume', '--tenant', 'acme-e2e'],
      code: 0,
      says: 'Executions in acme-e2e were already running; nothing changed.',
    },
    { args: ['executions:pause', '--tenant', 'nowhere'], code: 1, says: 'Error: No tenant "nowhere".' },
    {
      args: ['executions:pause', '--tenant', 'acme-e2e', '--reason', ''],
      code: 1,
      says: 'Error: --reason is 1–500 characters.',
    },
    { args: ['executions:resume'], code: 2, says: 'Error: missing --tenant' },
  ];
  test('executions:pause and executions:resume answer what they did, exit 1 when refused and 2 on a usage error', async () => {
    test.setTimeout(240_000);
    for (const { args, code, says } of STEPS) {
      const result = await cli(dataDir, args);
      expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(code);
      expect(code === 0 ? result.stdout : result.stderr).toContain(says);
    }
  });
});

test.describe("the auditor's commands", () => {
  test.describe.configure({ mode: 'serial' });
  let dataDir = '';
  let head = { seq: 0, hash: '' };
  test.beforeAll(async () => {
    test.setTimeout(240_000); // four CLI processes, the first migrating a fresh database, beside the other worker
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-cli-audit-'));
    // Each of these writes an event to the tenant's chain: tenant.created, membership.granted, agent_key.created.
    for (const args of [
      ['create-tenant', 'audit-e2e'],
      ['create-user', 'auditor@audit.test', '--name', 'Auditor'],
      ['grant', 'auditor@audit.test', 'audit-e2e', 'viewer'],
      ['create-agent-key', 'audit-e2e', 'bot', '--actions', 'hold_stock'],
    ]) {
      const result = await cli(dataDir, args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
  });
  test.afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const write = (name: string, value: unknown) => {
    const file = path.join(dataDir, name);
    fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  };

  /** A checkpoint file as `GET /api/v1/audit/checkpoint` answers, signed by a fresh key (listed in it, or not). */
  async function checkpointFile(
    name: string,
    claim: { seq: number; hash: string },
    options: { listKey?: boolean } = {},
  ) {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const kid = `cli-e2e-${name}`;
    const at = new Date().toISOString();
    const checkpoint = await new SignJWT({ tenant: 'audit-e2e', ...claim, at })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'countersign-checkpoint+jwt' })
      .sign(privateKey);
    const other = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const listed =
      options.listKey === false
        ? { ...(await exportJWK(other.publicKey)), kid: 'someone-else' }
        : { ...(await exportJWK(publicKey)), kid };
    const key = { ...listed, alg: 'EdDSA', use: 'sig' };
    return {
      file: write(`${name}.json`, { tenant: 'audit-e2e', ...claim, at, checkpoint, keys: [key] }),
      jwks: write(`${name}-jwks.json`, { keys: [key] }),
    };
  }

  test('audit:verify recomputes the chains and names the head', async () => {
    const result = await cli(dataDir, ['audit:verify', '--tenant', 'audit-e2e']);
    expect(result.code, result.stderr).toBe(0);
    const match = result.stdout.match(/^audit-e2e: verified through #(\d+) \((sha256:[0-9a-f]{64})\)$/m);
    expect(match, result.stdout).not.toBeNull();
    head = { seq: Number(match![1]), hash: match![2]! };
    expect(head.seq).toBe(3);
    const all = await cli(dataDir, ['audit:verify']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain(`audit-e2e: verified through #${head.seq} (${head.hash})`);
  });

  test('a signed checkpoint of the head matches; one from a rolled-back or forked chain, or an untrusted key, does not', async () => {
    const good = await checkpointFile('good', head);
    const matched = await cli(dataDir, ['audit:verify', '--checkpoint', good.file, '--keys', good.jwks]);
    expect(matched.code, matched.stderr).toBe(0);
    expect(matched.stdout).toContain(
      `audit-e2e: verified through #${head.seq} (${head.hash}), matching 1 signed checkpoint(s)`,
    );

    // The server once signed a longer chain than the database now holds: the tail was rolled back.
    const ahead = await checkpointFile('ahead', { seq: head.seq + 2, hash: `sha256:${'a'.repeat(64)}` });
    const rolledBack = await cli(dataDir, ['audit:verify', '--checkpoint', ahead.file]);
    expect(rolledBack.code).toBe(1);
    expect(rolledBack.stdout).toContain(`audit-e2e: BROKEN at #${head.seq + 1}`);
    expect(rolledBack.stdout).toContain('(truncated)');
    expect(rolledBack.stderr).toContain('first bad sequence number: audit-e2e #');

    const forked = await checkpointFile('forked', { seq: head.seq, hash: `sha256:${'f'.repeat(64)}` });
    const fork = await cli(dataDir, ['audit:verify', '--checkpoint', forked.file]);
    expect(fork.code).toBe(1);
    expect(fork.stdout).toContain('(checkpoint_mismatch)');
    expect(fork.stderr).toContain(`first bad sequence number: audit-e2e #${head.seq}`);

    // Signed by a key the file does not list, or that the auditor does not trust.
    const unlisted = await checkpointFile('unlisted', head, { listKey: false });
    const unknownKey = await cli(dataDir, ['audit:verify', '--checkpoint', unlisted.file]);
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toContain('which is not among the trusted keys');
    const pinned = await cli(dataDir, ['audit:verify', '--checkpoint', good.file, '--keys', unlisted.jwks]);
    expect(pinned.code).toBe(1);
    expect(pinned.stderr).toContain('which is not among the trusted keys');
  });

  const REFUSED: { name: string; args: (files: Record<string, string>) => string[]; says: string }[] = [
    {
      name: 'an unknown tenant',
      args: () => ['audit:verify', '--tenant', 'nope'],
      says: 'Error: tenant "nope" has no audit chain',
    },
    {
      name: 'a malformed checkpoint file',
      args: (f) => ['audit:verify', '--checkpoint', f.malformed!],
      says: 'is not a saved checkpoint',
    },
    {
      name: 'a checkpoint that is not JSON',
      args: (f) => ['audit:verify', '--checkpoint', f.text!],
      says: 'is not JSON',
    },
    {
      name: 'a checkpoint whose JWS is garbage',
      args: (f) => ['audit:verify', '--checkpoint', f.garbage!],
      says: 'the checkpoint is not a compact JWS',
    },
    { name: 'a missing file', args: (f) => ['bundle:verify', path.join(f.dir!, 'absent.json')], says: 'cannot read' },
    { name: 'a JSON file that is no bundle', args: (f) => ['bundle:verify', f.notBundle!], says: 'format' },
  ];
  test('refusals exit 1 and say why; a missing bundle file argument is a usage error (exit 2)', async () => {
    const { jwks } = await checkpointFile('keys-for-malformed', head);
    const keys = (JSON.parse(fs.readFileSync(jwks, 'utf8')) as { keys: unknown[] }).keys;
    const files = {
      dir: dataDir,
      malformed: write('malformed.json', { checkpoint: 42 }),
      text: write('text.json', 'not json at all'),
      garbage: write('garbage.json', { checkpoint: 'not.a.jws', keys }),
      notBundle: write('not-bundle.json', { format: 'something-else/1', payload: {} }),
    };
    for (const { name, args, says } of REFUSED) {
      const result = await cli(dataDir, args(files));
      expect(result.code, `${name}: ${result.stdout}${result.stderr}`).toBe(1);
      expect(`${result.stdout}${result.stderr}`, name).toContain(says);
    }
    const usage = await cli(dataDir, ['bundle:verify']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Error: missing bundle file');
    expect(usage.stderr).toContain('Usage: npm run cli -- <command> [options]');
  });
});
