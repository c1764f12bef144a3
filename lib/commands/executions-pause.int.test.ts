import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, commands, executions, outbox } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { executeCommand } from '@/lib/commands/execute';
import { Refusal } from '@/lib/errors/refusal';
import { chainAllPending } from '@/lib/events/chainer';
import { COMMAND_MINTED, dispatchCommands } from '@/lib/jobs/dispatch-commands';
import { expireOverdue } from '@/lib/jobs/expire-proposals';
import { sweepReminders } from '@/lib/notifications/schedule';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, executorFetch, writeClients } from '@/test/fixtures/jobs';
import { submitAs } from '@/test/intake';
import { proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { executionsState, pauseExecutions, resumeExecutions } from './executions-pause';

const t = setupTestDatabase();
const systems = setupDemoSystems();

let world: SeededWorld;
const agents = {} as Record<'acme' | 'globex', AgentPrincipal>;
let sequence = 0;
const EXECUTOR = 'http://executor.test';

beforeAll(async () => {
  world = await seedWorld(t.db);
  agents.acme = await world.agent('acme');
  agents.globex = await world.agent('globex');
});

/** Future times (one hour apart per call), so outbox rows, available from the database's now, are due. */
let clock = new Date('2036-01-01T00:00:00Z').getTime();
const later = (ms = 3_600_000) => new Date((clock += ms));
const plus = (at: Date, ms: number) => new Date(at.getTime() + ms);

const carol = () => ({ type: 'user' as const, id: world.userId('carol') });
const hold = (tenant: 'acme' | 'globex') => ({
  requestId: `req_pause_${++sequence}`,
  action: 'hold_stock',
  contractVersion: 1,
  args: { sku: tenant === 'acme' ? 'filter-blue' : 'filter-green', quantity: 1 },
});
const approved = (tenant: 'acme' | 'globex', now: Date) =>
  approvedCommand(
    t.db,
    systems.client,
    agents[tenant],
    world.userId(tenant === 'acme' ? 'alice' : 'erin'),
    hold(tenant),
    now,
  );

function executor(at: () => Date) {
  return executorFetch(t.db, {
    systems: systems.client,
    writeClients: writeClients(systems.systems.service.url, systems.systems.credentials),
    clock: at,
  });
}

async function pauseEvents(tenantId: string) {
  await chainAllPending(t.db);
  const rows = await t.db.select().from(auditEvents).where(eq(auditEvents.tenantId, tenantId));
  return rows
    .filter((row) => row.type.startsWith('executions.'))
    .map((row) => ({ type: row.type, actor: `${row.actorType}:${row.actorId}`, data: row.data }));
}

const mintedRows = (proposalId: string) =>
  t.db
    .select()
    .from(outbox)
    .where(and(eq(outbox.proposalId, proposalId), eq(outbox.topic, COMMAND_MINTED)));

describe('the emergency stop', () => {
  it('pauses and resumes once each, audited as the admin; asking again changes nothing; the other tenant runs on', async () => {
    const at = later();
    const paused = await pauseExecutions(t.db, 'acme', carol(), { reason: 'Suspected leaked key' }, at);
    expect(paused).toEqual({
      changed: true,
      state: {
        paused: true,
        pausedAt: at,
        pausedBy: { id: carol().id, name: 'Carol' },
        reason: 'Suspected leaked key',
      },
    });
    expect(await pauseExecutions(t.db, 'acme', carol(), {}, plus(at, 1_000))).toMatchObject({
      changed: false,
      state: { pausedAt: at, reason: 'Suspected leaked key' },
    });
    expect(await executionsState(t.db, 'globex')).toEqual({
      paused: false,
      pausedAt: null,
      pausedBy: null,
      reason: null,
    });

    const resumed = await resumeExecutions(t.db, 'acme', carol(), plus(at, 90_000));
    expect(resumed).toEqual({ changed: true, state: { paused: false, pausedAt: null, pausedBy: null, reason: null } });
    expect(await resumeExecutions(t.db, 'acme', carol(), plus(at, 91_000))).toMatchObject({ changed: false });
    expect(await pauseEvents('acme')).toEqual([
      { type: 'executions.paused', actor: `user:${carol().id}`, data: { reason: 'Suspected leaked key' } },
      {
        type: 'executions.resumed',
        actor: `user:${carol().id}`,
        data: { pausedAt: at.toISOString(), pausedSeconds: 90, deadlinesMoved: expect.any(Number) },
      },
    ]);
    expect(await pauseEvents('globex')).toEqual([]);
    expect(await pauseExecutions(t.db, 'tnt_nope', carol(), {}, at)).toBeUndefined();
  });

  it('holds dispatch while paused, the executor defers without consuming, and the resume lets it run', async () => {
    const at = later();
    const acme = await approved('acme', at);
    const globex = await approved('globex', at);
    await pauseExecutions(t.db, 'acme', carol(), {}, plus(at, 1_000));

    const during = plus(at, 2_000);
    const run = executor(() => during);
    await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: during, fetch: run.fetcher });
    expect(run.received).toContain(globex.commandId);
    expect(run.received).not.toContain(acme.commandId);
    expect(await mintedRows(acme.proposal.id)).toMatchObject([{ attempts: 0, deliveredAt: null, deadAt: null }]);

    // A command that still reaches the executor (claimed just before the pause) is deferred: a 503, not consumed.
    const refusal = await executeCommand(t.db, {
      scope: acme.scope,
      jws: acme.jws,
      systems: systems.client,
      writeClient: writeClients(systems.systems.service.url, systems.systems.credentials)(acme.scope),
      clock: () => during,
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(Refusal);
    expect(refusal).toMatchObject({ code: 'executions_paused', status: 503 });
    expect(
      await t.db.select({ consumedAt: commands.consumedAt }).from(commands).where(eq(commands.id, acme.commandId)),
    ).toEqual([{ consumedAt: null }]);
    expect(await t.db.select().from(executions).where(eq(executions.proposalId, acme.proposal.id))).toEqual([]);
    expect(await proposalRow(t.db, acme.proposal.id)).toMatchObject({ status: 'approved' });

    const after = plus(at, 3_000);
    await resumeExecutions(t.db, 'acme', carol(), after);
    const resumed = executor(() => after);
    await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: after, fetch: resumed.fetcher });
    expect(resumed.received).toEqual([acme.commandId]);
    expect(await proposalRow(t.db, acme.proposal.id)).toMatchObject({ status: 'succeeded' });
  });

  it('a command whose five minutes ran out while paused is minted anew after the resume and runs', async () => {
    const at = later();
    const acme = await approved('acme', at);
    await pauseExecutions(t.db, 'acme', carol(), {}, plus(at, 1_000));
    const after = plus(at, 20 * 60_000);
    await resumeExecutions(t.db, 'acme', carol(), after);
    const run = executor(() => after);
    await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: after, fetch: run.fetcher });
    const [renewed] = await t.db.select().from(commands).where(eq(commands.proposalId, acme.proposal.id));
    expect(renewed!.id).not.toBe(acme.commandId);
    await dispatchCommands(t.db, { executorBaseUrl: EXECUTOR, now: after, fetch: run.fetcher });
    expect(run.received).toEqual([acme.commandId, renewed!.id]);
    expect(await proposalRow(t.db, acme.proposal.id)).toMatchObject({ status: 'succeeded' });
  });

  it('counts no expiry while paused: the sweep leaves the tenant alone and the resume moves deadlines on by the time paused', async () => {
    const at = later();
    const { proposal } = await submitAs(t.db, systems.client, agents.acme, hold('acme'), { now: at });
    const deadline = proposal.expiresAt;
    const pausedAt = plus(deadline, -60_000);
    await pauseExecutions(t.db, 'acme', carol(), {}, pausedAt);
    expect(await expireOverdue(t.db, plus(deadline, 3_600_000))).toBe(0);
    expect(await proposalRow(t.db, proposal.id)).toMatchObject({ status: 'pending_approval' });

    // Nor is anyone reminded of an expiry that is not coming.
    await sweepReminders(t.db, plus(deadline, -30_000));
    expect(await proposalRow(t.db, proposal.id)).toMatchObject({ remindedAt: null });

    const resumedAt = plus(pausedAt, 2 * 3_600_000);
    await resumeExecutions(t.db, 'acme', carol(), resumedAt);
    const moved = plus(deadline, 2 * 3_600_000);
    expect(await proposalRow(t.db, proposal.id)).toMatchObject({ status: 'pending_approval', expiresAt: moved });
    await expireOverdue(t.db, plus(moved, -1_000));
    expect(await proposalRow(t.db, proposal.id)).toMatchObject({ status: 'pending_approval' });
    await expireOverdue(t.db, moved);
    expect(await proposalRow(t.db, proposal.id)).toMatchObject({ status: 'expired' });
  });
});
