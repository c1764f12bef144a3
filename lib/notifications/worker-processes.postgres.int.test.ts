import { type ChildProcess, spawn } from 'node:child_process';
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationDeliveries } from '@/db/schema';
import { type HttpSink, startHttpSink } from '@/demo/receivers/http-sink';
import { setupTestDatabase, testDatabaseUrl } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seedWorld } from '@/test/world';
import { createChannel } from './channels';

/** Worker processes against one PostgreSQL deliver each notification exactly once, across a restart. */
const t = setupTestDatabase();
const systems = setupDemoSystems();
if (t.driver !== 'postgres') {
  throw new Error(
    'worker-processes.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.',
  );
}

const EVENTS = 200;
let sink: HttpSink;
let channelId: string;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  sink = await startHttpSink({ keep: 10_000 });
  const world = await seedWorld(t.db);
  // Each message on its own: this counts deliveries, not digests (lib/notifications/digest.int.test.ts).
  const created = await createChannel(
    t.db,
    'acme',
    { type: 'system', id: 'test' },
    { kind: 'webhook', target: `${sink.url}/load`, events: ['proposal.waiting'], digestThreshold: 0 },
    { targets: { allowedPrivateOrigins: [sink.url] } },
  );
  channelId = created!.channel.id;
  sink.expectSecret('/load', created!.secret!);
  const agent = await world.agent('acme');
  for (let i = 0; i < EVENTS; i++) {
    await submitAs(t.db, systems.client, agent, {
      requestId: `req_load_${i}`,
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-gray', quantity: 1 },
    });
  }
}, 120_000);

afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await sink?.close();
});

/** Whether each worker has said it is running (its signal handlers are in place from then on). */
const running = new WeakMap<ChildProcess, Promise<void>>();

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/worker.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      DATABASE_URL: testDatabaseUrl(t.handle),
      APP_URL: 'https://countersign.example',
      NOTIFY_ALLOWED_PRIVATE_ORIGINS: sink.url,
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let output = '';
  running.set(
    child,
    new Promise((resolve) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('worker running')) resolve();
      });
    }),
  );
  workers.push(child);
  return child;
}

/** SIGTERM once the worker runs: a signal while it is still loading would end it before it could finish cleanly. */
async function stop(worker: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => worker.once('exit', resolve));
  await running.get(worker);
  worker.kill('SIGTERM');
  return exited;
}

async function delivered(): Promise<number> {
  const [row] = await t.db
    .select({ n: count() })
    .from(notificationDeliveries)
    .where(and(eq(notificationDeliveries.channelId, channelId), eq(notificationDeliveries.status, 'delivered')));
  return Number(row?.n ?? 0);
}

async function until(condition: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !(await condition())) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('notification workers (PostgreSQL)', () => {
  it(`two worker processes, one of them restarted midway, deliver ${EVENTS} notifications once each`, async () => {
    const first = startWorkerProcess();
    startWorkerProcess();
    await until(async () => (await delivered()) >= 40, 60_000);
    expect(await stop(first), 'a stopped worker finishes what it claimed').toBe(0);
    startWorkerProcess();
    await until(async () => (await delivered()) >= EVENTS, 90_000);
    expect(await delivered()).toBe(EVENTS);

    const received = sink.received('/load');
    const ids = received.map((request) => request.headers['webhook-id']);
    expect(received).toHaveLength(EVENTS);
    expect(new Set(ids).size).toBe(EVENTS);
    expect(received.every((request) => request.signature === 'valid')).toBe(true);
    const rows = await t.db
      .select()
      .from(notificationDeliveries)
      .where(eq(notificationDeliveries.channelId, channelId));
    expect(rows).toHaveLength(EVENTS);
    expect(rows.every((row) => row.attempts === 1)).toBe(true);
    for (const worker of workers.filter((w) => w !== first && w.exitCode === null)) expect(await stop(worker)).toBe(0);
  }, 180_000);
});
