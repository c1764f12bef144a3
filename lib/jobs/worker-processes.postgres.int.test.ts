import { type ChildProcess, spawn } from 'node:child_process';
import { and, count, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox } from '@/db/schema';
import { setupTestDatabase, testDatabaseUrl } from '@/test/db';
import { approvedCommand, executorFetch, type Minted, serveFetcher, writeClients } from '@/test/fixtures/jobs';
import { setupDemoSystems } from '@/test/systems';
import { seedWorld } from '@/test/world';
import { COMMAND_MINTED } from './dispatch-commands';

/** Two `npm run worker` processes against one PostgreSQL deliver each command exactly once. */
const t = setupTestDatabase();
const systems = setupDemoSystems();
if (t.driver !== 'postgres') {
  throw new Error(
    'worker-processes.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.',
  );
}

const minted: Minted[] = [];
let server: Awaited<ReturnType<typeof serveFetcher>>;
let executor: ReturnType<typeof executorFetch>;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  const world = await seedWorld(t.db);
  const agent = await world.agent('acme');
  for (let i = 0; i < 20; i++) {
    const body = {
      requestId: `req_worker_proc_${i}`,
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    };
    minted.push(await approvedCommand(t.db, systems.client, agent, world.userId('alice'), body, new Date()));
  }
  // The real executor logic behind a real HTTP endpoint, counting every command it is sent.
  executor = executorFetch(t.db, {
    systems: systems.client,
    writeClients: writeClients(systems.systems.service.url, systems.systems.credentials),
  });
  server = await serveFetcher(executor.fetcher);
});

afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await server.close();
});

type WorkerProcess = { child: ChildProcess; running: Promise<void> };

/** A worker process, and its "worker running" line: printed once its signal handlers are in place. */
function startWorkerProcess(): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/worker.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      DATABASE_URL: testDatabaseUrl(t.handle),
      APP_URL: server.url,
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  workers.push(child);
  const running = new Promise<void>((resolve, reject) => {
    let printed = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
      if (printed.includes('worker running')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it was running`)));
  });
  return { child, running };
}

async function delivered(): Promise<number> {
  const [row] = await t.db
    .select({ n: count() })
    .from(outbox)
    .where(and(eq(outbox.topic, COMMAND_MINTED), isNotNull(outbox.deliveredAt)));
  return Number(row?.n ?? 0);
}

describe('worker processes (PostgreSQL)', () => {
  it('two worker processes at once deliver each of 20 commands exactly once', async () => {
    const [first, second] = [startWorkerProcess(), startWorkerProcess()];
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && (await delivered()) < minted.length)
      await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await delivered()).toBe(minted.length);
    expect([...executor.received].sort()).toEqual(minted.map((m) => m.commandId).sort());
    // One worker may have delivered everything before the other finished starting: a SIGTERM
    // before its handlers are in place would end it by the signal, not by its clean shutdown.
    for (const { child, running } of [first, second]) {
      await running;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 90_000);
});
