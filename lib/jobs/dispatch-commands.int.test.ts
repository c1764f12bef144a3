import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { commands, executions, outbox, proposals } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, executorFetch, type Minted, writeClients } from '@/test/fixtures/jobs';
import { proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { COMMAND_MINTED, dispatchBackoffMs, dispatchCommands, MAX_DISPATCH_ATTEMPTS } from './dispatch-commands';

const t = setupTestDatabase();
const systems = setupDemoSystems();

let world: SeededWorld;
let acme: AgentPrincipal;
let sequence = 0;
const EXECUTOR = 'http://executor.test';

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
});

/** Future times, so outbox rows (available from the database's now) are always due. */
let clock = new Date('2035-01-01T00:00:00Z').getTime();
const later = (ms = 3_600_000) => new Date((clock += ms));

async function mint(now: Date): Promise<Minted> {
  const body = {
    requestId: `req_dispatch_${++sequence}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity: 1 },
  };
  return approvedCommand(t.db, systems.client, acme, world.userId('alice'), body, now);
}

async function mintedRow(proposalId: string) {
  const [row] = await t.db
    .select()
    .from(outbox)
    .where(and(eq(outbox.proposalId, proposalId), eq(outbox.topic, COMMAND_MINTED)));
  if (!row) throw new Error('no command.minted outbox row');
  return row;
}

type Received = { url: string; contentType: string | null; jws: string };

/** A stub executor (the executor is not under test here): records each request and answers as told. */
function stubExecutor(answer: (jws: string) => Response | Promise<Response>) {
  const received: Received[] = [];
  const fetcher = (async (input: URL | RequestInfo, init?: RequestInit) => {
    const jws = String(init?.body);
    received.push({ url: String(input), contentType: new Headers(init?.headers).get('content-type'), jws });
    return answer(jws);
  }) as typeof fetch;
  return { received, fetcher };
}

const executed = (jws: string) => {
  const claims = JSON.parse(Buffer.from(jws.split('.')[1]!, 'base64url').toString()) as { jti: string; sub: string };
  return Response.json({
    execution: { status: 'succeeded', commandId: claims.jti, proposalId: claims.sub, receipt: { id: 'hold_1' } },
  });
};

describe('dispatchCommands', () => {
  it('delivers a minted command once to the real executor, which runs it; then never again', async () => {
    const now = later();
    const minted = await mint(now);
    const at = new Date(now.getTime() + 1_000);
    const executor = executorFetch(t.db, {
      systems: systems.client,
      writeClients: writeClients(systems.systems.service.url, systems.systems.credentials),
      clock: () => at,
    });
    const first = await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: at, fetch: executor.fetcher });
    expect(first).toMatchObject({ claimed: 1, delivered: 1, dead: 0, retrying: 0 });
    expect(executor.received).toEqual([minted.commandId]);
    const row = await mintedRow(minted.proposal.id);
    expect(row.deliveredAt).not.toBeNull();
    expect(row.attempts).toBe(1);
    expect(row.deadAt).toBeNull();
    const [execution] = await t.db.select().from(executions).where(eq(executions.commandId, minted.commandId));
    expect(execution?.status).toBe('succeeded');
    expect((await proposalRow(t.db, minted.proposal.id)).status).toBe('succeeded');
    // Much later: nothing is due any more.
    expect(
      await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: later(), fetch: executor.fetcher }),
    ).toMatchObject({ claimed: 0 });
    expect(executor.received).toHaveLength(1);
  });

  it('sends to /api/executor/<scope> as application/jose', async () => {
    const minted = await mint(later());
    const executor = stubExecutor(executed);
    expect(
      await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: later(1_000), fetch: executor.fetcher }),
    ).toMatchObject({ delivered: 1 });
    expect(executor.received).toEqual([
      { url: `${EXECUTOR}/api/executor/${minted.scope}`, contentType: 'application/jose', jws: minted.jws },
    ]);
  });

  it('an expired command of a still-approved proposal is replaced by a fresh one, which is delivered and runs once', async () => {
    const minted = await mint(later());
    // Every worker was down past the command's lifetime: the executor refuses it as expired.
    const refusing = stubExecutor(() =>
      Response.json({ error: { kind: 'command', code: 'expired', message: 'The command expired.' } }, { status: 401 }),
    );
    const resumeAt = later(10 * 60_000);
    expect(
      await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: resumeAt, fetch: refusing.fetcher }),
    ).toMatchObject({ claimed: 1, dead: 1 });
    const rows = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.proposalId, minted.proposal.id), eq(outbox.topic, COMMAND_MINTED)));
    expect(rows.map((row) => row.lastError).sort()).toEqual([null, 'superseded']);
    const [fresh] = await t.db.select().from(commands).where(eq(commands.proposalId, minted.proposal.id));
    expect(fresh?.id).not.toBe(minted.commandId);
    expect(fresh?.idempotencyKey).toBe(`cs.${minted.proposal.id}`);
    expect(fresh!.expiresAt.getTime()).toBeGreaterThan(resumeAt.getTime());

    const executor = executorFetch(t.db, {
      systems: systems.client,
      writeClients: writeClients(systems.systems.service.url, systems.systems.credentials),
      clock: () => resumeAt,
    });
    expect(
      await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: resumeAt, fetch: executor.fetcher }),
    ).toMatchObject({ claimed: 1, delivered: 1 });
    expect(executor.received).toEqual([fresh!.id]);
    expect((await proposalRow(t.db, minted.proposal.id)).status).toBe('succeeded');
  });

  it('an expired command of a proposal rejected meanwhile (deny wins) is not renewed', async () => {
    const minted = await mint(later());
    await t.db.update(proposals).set({ status: 'rejected' }).where(eq(proposals.id, minted.proposal.id));
    const refusing = stubExecutor(() =>
      Response.json({ error: { kind: 'command', code: 'expired', message: 'The command expired.' } }, { status: 401 }),
    );
    await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: later(10 * 60_000), fetch: refusing.fetcher });
    const rows = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.proposalId, minted.proposal.id), eq(outbox.topic, COMMAND_MINTED)));
    expect(rows.map((row) => row.lastError)).toEqual(['proposal_not_approved']);
    expect(
      (await t.db.select().from(commands).where(eq(commands.proposalId, minted.proposal.id))).map((row) => row.id),
    ).toEqual([minted.commandId]);
  });

  it('a refusal (4xx) makes the row dead with the refusal code, never retried', async () => {
    const minted = await mint(later());
    const executor = stubExecutor(() =>
      Response.json(
        { error: { kind: 'command', code: 'bad_signature', message: 'The signature does not verify.' } },
        { status: 401 },
      ),
    );
    const result = await dispatchCommands(t.db, {
      executorBaseUrl: EXECUTOR,
      now: later(1_000),
      fetch: executor.fetcher,
    });
    expect(result).toMatchObject({ claimed: 1, delivered: 0, dead: 1 });
    const row = await mintedRow(minted.proposal.id);
    expect(row.deadAt).not.toBeNull();
    expect(row.lastError).toBe('bad_signature');
    expect(row.deliveredAt).toBeNull();
    expect(
      await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: later(), fetch: executor.fetcher }),
    ).toMatchObject({ claimed: 0 });
    expect(executor.received).toHaveLength(1);
  });

  it('network errors and 5xx back off (2^attempts s), then deliver; dead after the last attempt', async () => {
    const minted = await mint(later());
    let failures = 2;
    const executor = stubExecutor((jws) => {
      if (failures-- === 2) throw new TypeError('fetch failed');
      if (failures === 0) return new Response('oops', { status: 503 });
      return executed(jws);
    });
    const at = later(1_000);
    expect(await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: at, fetch: executor.fetcher })).toMatchObject(
      { retrying: 1 },
    );
    let row = await mintedRow(minted.proposal.id);
    expect(row).toMatchObject({ attempts: 1, lastError: 'unreachable', deliveredAt: null, deadAt: null });
    expect(row.availableAt).toEqual(new Date(at.getTime() + dispatchBackoffMs(1)));
    // Not due before its backoff ends.
    expect(
      await dispatchCommands(t.db, {
        executorBaseUrl: EXECUTOR,
        now: new Date(at.getTime() + 1_000),
        fetch: executor.fetcher,
      }),
    ).toMatchObject({ claimed: 0 });
    const second = new Date(at.getTime() + dispatchBackoffMs(1));
    expect(
      await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: second, fetch: executor.fetcher }),
    ).toMatchObject({ retrying: 1 });
    row = await mintedRow(minted.proposal.id);
    expect(row).toMatchObject({ attempts: 2, lastError: 'http_503' });
    expect(row.availableAt).toEqual(new Date(second.getTime() + dispatchBackoffMs(2)));
    expect(
      await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: later(), fetch: executor.fetcher }),
    ).toMatchObject({ delivered: 1 });
    row = await mintedRow(minted.proposal.id);
    expect(row).toMatchObject({ attempts: 3, lastError: null, deadAt: null });
    expect(row.deliveredAt).not.toBeNull();
    expect(executor.received).toHaveLength(3);
    expect([1, 2, 8, 9, 10].map(dispatchBackoffMs)).toEqual([2_000, 4_000, 256_000, 300_000, 300_000]);

    // A command whose executor never answers dies after MAX_DISPATCH_ATTEMPTS, visibly.
    const hopeless = await mint(later());
    const down = stubExecutor(() => {
      throw new TypeError('fetch failed');
    });
    for (let i = 0; i < MAX_DISPATCH_ATTEMPTS; i++)
      await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: later(), fetch: down.fetcher });
    const dead = await mintedRow(hopeless.proposal.id);
    expect(dead).toMatchObject({ attempts: MAX_DISPATCH_ATTEMPTS, lastError: 'unreachable', deliveredAt: null });
    expect(dead.deadAt).not.toBeNull();
    expect(down.received).toHaveLength(MAX_DISPATCH_ATTEMPTS);
    expect(
      await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: later(), fetch: down.fetcher }),
    ).toMatchObject({ claimed: 0 });
  });

  it('a crash after claiming (lease taken, nothing sent) delivers once when the lease ends', async () => {
    const minted = await mint(later());
    const at = later(1_000);
    // The first dispatcher claims the row; its process dies before any answer arrives.
    const crashed = stubExecutor(() => {
      throw new Error('process died');
    });
    expect(await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: at, fetch: crashed.fetcher })).toMatchObject({
      claimed: 1,
    });
    // Simulate the crash precisely: the row as the claim left it (leased, attempt counted).
    await t.db
      .update(outbox)
      .set({ availableAt: new Date(at.getTime() + 60_000), lastError: null })
      .where(eq(outbox.id, (await mintedRow(minted.proposal.id)).id));
    const executor = stubExecutor(executed);
    // During the lease, another dispatcher leaves it alone…
    expect(
      await dispatchCommands(t.db, {
        executorBaseUrl: EXECUTOR,
        now: new Date(at.getTime() + 30_000),
        fetch: executor.fetcher,
      }),
    ).toMatchObject({ claimed: 0 });
    // …after it, the row is simply still there and is delivered once.
    expect(
      await dispatchCommands(t.db, {
        executorBaseUrl: EXECUTOR,
        now: new Date(at.getTime() + 61_000),
        fetch: executor.fetcher,
      }),
    ).toMatchObject({ delivered: 1 });
    expect(
      await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: later(), fetch: executor.fetcher }),
    ).toMatchObject({ claimed: 0 });
    expect(executor.received.map((r) => r.jws)).toEqual([minted.jws]);
    expect((await mintedRow(minted.proposal.id)).attempts).toBe(2);
  });

  it('posts the commands it claimed side by side: one slow executor call does not hold back the others', async () => {
    const at = later();
    const minted = [await mint(at), await mint(at), await mint(at)];
    const waiting = new Set(minted.map((m) => m.jws));
    let allArrived: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (allArrived = resolve));
    // Each answer waits until all three commands are in flight at once (sent one after another,
    // the first would wait for the others forever): counted, not raced against a clock.
    let inFlight = 0;
    let mostInFlight = 0;
    const executor = stubExecutor(async (jws) => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      waiting.delete(jws);
      if (waiting.size === 0) allArrived();
      await arrived;
      inFlight -= 1;
      return executed(jws);
    });
    const result = await dispatchCommands(t.db, {
      executorBaseUrl: EXECUTOR,
      now: new Date(at.getTime() + 1_000),
      fetch: executor.fetcher,
    });
    expect(mostInFlight).toBe(3);
    expect(result).toMatchObject({ claimed: 3, delivered: 3, retrying: 0 });
    for (const m of minted) expect((await mintedRow(m.proposal.id)).deliveredAt).not.toBeNull();
  });
});
