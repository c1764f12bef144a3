import { createServer, type Server } from 'node:http';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executions, outbox } from '@/db/schema';
import { executeCommand } from '@/lib/commands/execute';
import { Refusal } from '@/lib/errors/refusal';
import { errorBody } from '@/lib/http/errors';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, writeClients } from '@/test/fixtures/jobs';
import { manualClock } from '@/test/manual-clock';
import { proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { COMMAND_MINTED } from './dispatch-commands';
import { executorBaseUrl, startWorker } from './worker';

const t = setupTestDatabase();
const systems = setupDemoSystems();

let world: SeededWorld;
let server: Server;
let baseUrl = '';
const received: string[] = [];

/** The real executor over real HTTP, as the app serves `POST /api/executor/<scope>`. */
beforeAll(async () => {
  world = await seedWorld(t.db);
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const scope = decodeURIComponent((request.url ?? '').replace(/^\/api\/executor\//, ''));
      const jws = Buffer.concat(chunks).toString('utf8');
      received.push(jws);
      const clients = writeClients(systems.systems.service.url, systems.systems.credentials);
      executeCommand(t.db, { scope, jws, systems: systems.client, writeClient: clients(scope) })
        .then((execution) => ({ status: 200, body: { execution } }))
        .catch((error: unknown) =>
          error instanceof Refusal
            ? { status: error.status, body: errorBody(error) }
            : { status: 500, body: { error: 'internal' } },
        )
        .then(({ status, body }) => {
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(body));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  baseUrl = `http://127.0.0.1:${address.port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('startWorker', () => {
  it('runs dispatch until stopped: the command is executed once, and nothing runs after stop()', async () => {
    const hold = (requestId: string) => ({
      requestId,
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    });
    const agent = await world.agent('acme');
    const minted = await approvedCommand(
      t.db,
      systems.client,
      agent,
      world.userId('alice'),
      hold('req_worker_1'),
      new Date(),
    );
    const lines: string[] = [];
    const clock = manualClock();
    // Every job runs once at start; the clock moves only when the test says.
    const worker = startWorker(t.db, {
      executorBaseUrl: baseUrl,
      clock,
      log: (line) => lines.push(line),
      logError: (line) => lines.push(line),
    });
    try {
      await worker.settled();
    } finally {
      await worker.stop();
    }
    expect((await proposalRow(t.db, minted.proposal.id)).status).toBe('succeeded');
    expect(received).toEqual([minted.jws]);
    const [row] = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.proposalId, minted.proposal.id), eq(outbox.topic, COMMAND_MINTED)));
    expect(row?.deliveredAt).not.toBeNull();
    const [execution] = await t.db.select().from(executions).where(eq(executions.commandId, minted.commandId));
    expect(execution?.status).toBe('succeeded');
    expect(lines.some((line) => line.includes('dispatched 1 command: 1 delivered'))).toBe(true);
    expect(lines.some((line) => line.includes('failed'))).toBe(false);

    // Stopped: an approval made afterwards is not dispatched however far the clock moves, because
    // no interval is left to tick (a stop() that did nothing would dispatch it on the next tick).
    const after = await approvedCommand(
      t.db,
      systems.client,
      agent,
      world.userId('alice'),
      hold('req_worker_2'),
      new Date(),
    );
    expect(clock.active).toBe(0);
    for (let tick = 0; tick < 60; tick++) {
      clock.advance(60_000);
      await worker.settled();
    }
    expect(received).toEqual([minted.jws]);
    expect((await proposalRow(t.db, after.proposal.id)).status).toBe('approved');
  });

  it('sends commands to APP_URL, else to this machine on PORT', () => {
    expect(executorBaseUrl({ APP_URL: 'https://countersign.example', PORT: 3000 })).toBe('https://countersign.example');
    expect(executorBaseUrl({ APP_URL: undefined, PORT: 4321 })).toBe('http://127.0.0.1:4321');
  });
});
