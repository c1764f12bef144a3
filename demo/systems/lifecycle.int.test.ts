import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DataFileError } from './persistence';
import { startSystemsOfRecord } from './server';
import { call, holdBody, refundBody, TEST_CREDENTIALS } from './testing';

/** Persistence across restarts with a data file, and the standalone entry (scripts/systems.ts). */

const { payments: PAYMENTS, inventory: INVENTORY } = TEST_CREDENTIALS;
let directory: string;

beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-systems-'));
});

afterAll(() => {
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('data file', () => {
  it('keeps refunds and holds across a restart, written atomically', async () => {
    const dataFile = path.join(directory, 'nested', 'systems.json');
    const first = await startSystemsOfRecord({ port: 0, credentials: TEST_CREDENTIALS, dataFile });
    const refund = await call(first.url, 'POST', '/refunds', { auth: PAYMENTS, body: refundBody() });
    const hold = await call(first.url, 'POST', '/holds', { auth: INVENTORY, body: holdBody() });
    expect([refund.status, hold.status]).toEqual([201, 201]);
    await first.close();

    const stored = JSON.parse(fs.readFileSync(dataFile, 'utf8')) as {
      version: number;
      refunds: unknown[];
      holds: unknown[];
    };
    expect(stored.version).toBe(1);
    expect(stored.refunds).toContainEqual(refund.json);
    expect(stored.holds).toStrictEqual([hold.json]);
    expect(fs.readdirSync(path.dirname(dataFile))).toEqual(['systems.json']);
    expect(fs.statSync(dataFile).mode & 0o777).toBe(0o600);

    const second = await startSystemsOfRecord({ port: 0, credentials: TEST_CREDENTIALS, dataFile });
    try {
      expect((await call(second.url, 'GET', '/orders/ord_1842')).json).toMatchObject({
        refundedMinor: 1000,
        refunds: [{ id: refund.json.id }],
      });
      expect((await call(second.url, 'GET', '/orders/ord_1843')).json).toMatchObject({ refundedMinor: 2000 });
      expect((await call(second.url, 'GET', '/skus/filter-blue')).json).toMatchObject({
        holds: [{ id: hold.json.id }],
      });
      expect(
        (await call(second.url, 'GET', '/refunds?idempotencyKey=refund-key-1', { auth: PAYMENTS })).json,
      ).toStrictEqual(refund.json);
      // Idempotency survives the restart: the same key and body replay, a different body conflicts.
      const replay = await call(second.url, 'POST', '/refunds', { auth: PAYMENTS, body: refundBody() });
      expect(replay.status).toBe(200);
      expect(replay.json).toStrictEqual(refund.json);
      expect(
        (await call(second.url, 'POST', '/holds', { auth: INVENTORY, body: holdBody({ quantity: 1 }) })).status,
      ).toBe(409);
    } finally {
      await second.close();
    }
  });

  it('starts from the seeded world when the file does not exist yet, and writes nothing until a commit', async () => {
    const dataFile = path.join(directory, 'fresh.json');
    const service = await startSystemsOfRecord({ port: 0, credentials: TEST_CREDENTIALS, dataFile });
    try {
      expect((await call(service.url, 'GET', '/orders/ord_1843')).json).toMatchObject({ refundedMinor: 2000 });
      expect(fs.existsSync(dataFile)).toBe(false);
      expect(
        (await call(service.url, 'POST', '/refunds', { auth: PAYMENTS, body: refundBody({ amountMinor: 9999 }) }))
          .status,
      ).toBe(422);
      expect(fs.existsSync(dataFile)).toBe(false);
    } finally {
      await service.close();
    }
  });

  it('/__reset writes the seeded world to the file', async () => {
    const dataFile = path.join(directory, 'reset.json');
    const first = await startSystemsOfRecord({ port: 0, credentials: TEST_CREDENTIALS, dataFile, testMode: true });
    expect((await call(first.url, 'POST', '/holds', { auth: INVENTORY, body: holdBody() })).status).toBe(201);
    expect((await call(first.url, 'POST', '/__reset')).status).toBe(200);
    await first.close();
    const second = await startSystemsOfRecord({ port: 0, credentials: TEST_CREDENTIALS, dataFile });
    try {
      expect((await call(second.url, 'GET', '/skus/filter-blue')).json).toMatchObject({ holds: [] });
      expect((await call(second.url, 'GET', '/orders/ord_1843')).json).toMatchObject({ refundedMinor: 2000 });
    } finally {
      await second.close();
    }
  });

  it.each([
    ['not JSON', '{"version": 1,'],
    ['another shape', JSON.stringify({ version: 2, refunds: [], holds: [] })],
    [
      'a float amount',
      JSON.stringify({
        version: 1,
        refunds: [{ ...refundBody(), amountMinor: 1.5, id: 're_x', createdAt: '2025-01-01T00:00:00.000Z' }],
        holds: [],
      }),
    ],
  ])('refuses to start on a data file that is %s (and leaves it alone)', async (name, content) => {
    const dataFile = path.join(directory, `broken-${name.replace(/\W+/g, '-')}.json`);
    fs.writeFileSync(dataFile, content);
    await expect(startSystemsOfRecord({ port: 0, credentials: TEST_CREDENTIALS, dataFile })).rejects.toBeInstanceOf(
      DataFileError,
    );
    expect(fs.readFileSync(dataFile, 'utf8')).toBe(content);
  });
});

describe('scripts/systems.ts', () => {
  const script = path.resolve('scripts/systems.ts');

  function start(args: string[]): {
    child: ChildProcessWithoutNullStreams;
    output: () => string;
    exit: Promise<number | null>;
  } {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: 'pipe' });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, output: () => output, exit };
  }

  const credentials = ['--payments-credential', PAYMENTS, '--inventory-credential', INVENTORY];

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'prints its URL, serves, and exits 0 on %s even with a hung connection',
    async (signal) => {
      const dataFile = path.join(directory, `script-${signal}.json`);
      const run = start([...credentials, '--test-mode', '--port', '0', '--data-file', dataFile]);
      try {
        const url = await vi.waitFor(
          () => {
            const match = /listening on (http:\/\/127\.0\.0\.1:\d+) \(test mode\)/.exec(run.output());
            if (!match?.[1]) throw new Error(`no URL yet: ${run.output()}`);
            return match[1];
          },
          { timeout: 20_000, interval: 50 },
        );
        expect((await call(url, 'POST', '/holds', { auth: INVENTORY, body: holdBody() })).status).toBe(201);
        expect(fs.existsSync(dataFile)).toBe(true);
        await call(url, 'POST', '/__faults', { body: { target: 'refunds', mode: 'timeout_after_commit' } });
        const hung = call(url, 'POST', '/refunds', { auth: PAYMENTS, body: refundBody() }).catch(
          (error: unknown) => error,
        );
        await vi.waitFor(async () => {
          expect((await call(url, 'GET', '/__faults')).json).toMatchObject({ pending: { refunds: [] } });
        });

        run.child.kill(signal);
        expect(await run.exit).toBe(0);
        expect(await hung).toBeInstanceOf(TypeError);
        // Request lines are logged; credentials and bodies never are.
        expect(run.output()).toContain('POST /holds 201');
        expect(run.output()).not.toContain(PAYMENTS);
        expect(run.output()).not.toContain(INVENTORY);
        expect(run.output()).not.toContain('filter-blue');
      } finally {
        if (run.child.exitCode === null) run.child.kill('SIGKILL');
      }
    },
  );

  it.each([
    ['no credentials', ['--port', '0']],
    ['an unknown flag', [...credentials, '--port', '0', '--admin']],
    ['a bad port', [...credentials, '--port', 'eighty']],
  ])('exits 2 with usage on %s', async (_, args) => {
    const run = start(args);
    expect(await run.exit).toBe(2);
    expect(run.output()).toContain('Usage:');
  });
});
