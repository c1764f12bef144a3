import { and, eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executions, outbox } from '@/db/schema';
import { orderRecord } from '@/lib/actions/issue_refund/adapter';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { proposalDetail } from '@/lib/api/responses/proposal-json';
import { executeCommand } from '@/lib/commands/execute';
import { receiptHash } from '@/lib/commands/receipt-hash';
import { executionStateFor } from '@/lib/proposals/execution-state';
import type { SystemsWriteClient } from '@/lib/systems/client';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, executeToUnknownOutcome, type Minted, writeClients } from '@/test/fixtures/jobs';
import { auditRowsFor, proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { COMMAND_SKEW_MS, INTERRUPTED_AFTER_MS, reconcileBackoffMs, reconcileExecutions } from './reconcile-executions';

const t = setupTestDatabase();
const systems = setupDemoSystems();

let world: SeededWorld;
let acme: AgentPrincipal;
let sequence = 0;

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
});
beforeEach(() => systems.reset());

let clock = new Date('2036-01-01T00:00:00Z').getTime();
const later = (ms = 3_600_000) => new Date((clock += ms));

const clients = () => writeClients(systems.systems.service.url, systems.systems.credentials);

async function queueFault(mode: string) {
  const response = await fetch(`${systems.systems.service.url}/__faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: 'refunds', mode }),
  });
  expect(response.ok).toBe(true);
}

async function refund(now: Date, amountMinor = 1000): Promise<Minted> {
  const body = {
    requestId: `req_reconcile_${++sequence}`,
    action: 'issue_refund',
    contractVersion: 1,
    args: { orderId: 'ord_1842', amountMinor, currency: 'USD', reason: 'Customer requested a partial refund' },
  };
  return approvedCommand(t.db, systems.client, acme, world.userId('alice'), body, now);
}

async function order() {
  const read = await systems.client.read('/orders/ord_1842', orderRecord, 'payments');
  if (!read) throw new Error('ord_1842 missing');
  return read;
}

async function executionRow(id: string) {
  const [row] = await t.db.select().from(executions).where(eq(executions.id, id));
  if (!row) throw new Error('no execution');
  return row;
}

/** A refund that hits `mode` in the system of record and leaves the execution outcome_unknown. */
async function unknownOutcome(mode: string) {
  const now = later();
  const minted = await refund(now);
  await queueFault(mode);
  const { executionId, attempts } = await executeToUnknownOutcome(
    t.db,
    minted,
    { systems: systems.client, writeClient: clients()('payments') },
    now,
  );
  expect((await proposalRow(t.db, minted.proposal.id)).status).toBe('outcome_unknown');
  return { minted, executionId, now, before: attempts };
}

describe('reconcileExecutions', () => {
  it('timeout_after_commit: the system has the refund → succeeded with the validated receipt; exactly one refund', async () => {
    const { minted, executionId, now, before } = await unknownOutcome('timeout_after_commit');
    expect((await order()).refunds.filter((r) => r.idempotencyKey === minted.idempotencyKey)).toHaveLength(1);
    // Not due before its first check time.
    expect(
      await reconcileExecutions(t.db, { now: new Date(now.getTime() + 10_000), systems: clients() }),
    ).toMatchObject({ checked: 0 });
    const at = new Date(now.getTime() + 30_000);
    expect(await reconcileExecutions(t.db, { now: at, systems: clients() })).toEqual({
      checked: 1,
      succeeded: 1,
      failed: 0,
      pending: 0,
    });

    const execution = await executionRow(executionId);
    expect(execution).toMatchObject({ status: 'succeeded', attempts: before + 1, errorCode: null, nextCheckAt: null });
    const refunds = (await order()).refunds.filter((r) => r.idempotencyKey === minted.idempotencyKey);
    expect(refunds).toHaveLength(1);
    expect(execution.receipt).toMatchObject({
      id: refunds[0]!.id,
      orderId: 'ord_1842',
      amountMinor: 1000,
      currency: 'USD',
      idempotencyKey: minted.idempotencyKey,
    });
    expect((await proposalRow(t.db, minted.proposal.id)).status).toBe('succeeded');
    const audit = (await auditRowsFor(t.db, minted.proposal.id)).slice(-2);
    expect(audit.map((r) => [r.type, r.actorId, r.reasonCode])).toEqual([
      ['execution.checked', 'reconciliation', 'confirmed'],
      ['execution.succeeded', 'reconciliation', 'reconciled'],
    ]);
    // The outcome event records the receipt's hash, which an evidence bundle's receipt is held to.
    expect(audit[1]!.data.receiptHash).toBe(receiptHash(execution.receipt));
    // Audit events carry no payload: ids, attempt numbers and reasons only.
    expect(JSON.stringify(audit.map((r) => r.data))).not.toContain('Customer requested');
    const topics = await t.db
      .select({ topic: outbox.topic })
      .from(outbox)
      .where(and(eq(outbox.proposalId, minted.proposal.id), eq(outbox.topic, 'execution.succeeded')));
    expect(topics).toHaveLength(1);
    // Settled: nothing more to check, and never a second write.
    expect(await reconcileExecutions(t.db, { now: later(), systems: clients() })).toMatchObject({ checked: 0 });
    expect((await order()).refunds.filter((r) => r.idempotencyKey === minted.idempotencyKey)).toHaveLength(1);

    // Agents and operators see it; only operators see the command.
    const state = await executionStateFor(t.db, 'acme', minted.proposal.id);
    const proposal = await proposalRow(t.db, minted.proposal.id);
    const agentView = proposalDetail(proposal, [], 'http://x.test', 'agent', state);
    expect(agentView.execution).toMatchObject({
      status: 'succeeded',
      attempts: before + 1,
      checks: [{ outcome: 'confirmed', attempt: before + 1 }],
    });
    expect('command' in agentView).toBe(false);
    const operatorView = proposalDetail(proposal, [], 'http://x.test', 'operator', state);
    expect(operatorView).toMatchObject({
      command: {
        id: minted.commandId,
        jws: minted.jws,
        claims: { jti: minted.commandId, sub: minted.proposal.id, idempotencyKey: minted.idempotencyKey },
      },
    });
  });

  it('timeout_before_commit: checks again while the command could still run, then failed (not_committed); nothing committed', async () => {
    const { minted, executionId, now, before } = await unknownOutcome('timeout_before_commit');
    const first = new Date(now.getTime() + 30_000);
    expect(minted.expiresAt.getTime() + COMMAND_SKEW_MS).toBeGreaterThan(first.getTime());
    expect(await reconcileExecutions(t.db, { now: first, systems: clients() })).toEqual({
      checked: 1,
      succeeded: 0,
      failed: 0,
      pending: 1,
    });
    let execution = await executionRow(executionId);
    expect(execution).toMatchObject({ status: 'outcome_unknown', attempts: before + 1 });
    expect(execution.nextCheckAt).toEqual(new Date(first.getTime() + reconcileBackoffMs(before + 1)));
    expect((await proposalRow(t.db, minted.proposal.id)).status).toBe('outcome_unknown');

    const afterLifetime = new Date(
      Math.max(minted.expiresAt.getTime() + COMMAND_SKEW_MS + 1_000, execution.nextCheckAt!.getTime()),
    );
    expect(await reconcileExecutions(t.db, { now: afterLifetime, systems: clients() })).toEqual({
      checked: 1,
      succeeded: 0,
      failed: 1,
      pending: 0,
    });
    execution = await executionRow(executionId);
    expect(execution).toMatchObject({
      status: 'failed',
      errorCode: 'not_committed',
      attempts: before + 2,
      receipt: null,
      nextCheckAt: null,
    });
    expect((await auditRowsFor(t.db, minted.proposal.id)).at(-1)!.data).toMatchObject({ receiptHash: null });
    const proposal = await proposalRow(t.db, minted.proposal.id);
    expect(proposal.status).toBe('failed');
    expect(proposal.statusReason).toContain('nothing was committed');
    expect((await order()).refunds.filter((r) => r.idempotencyKey === minted.idempotencyKey)).toEqual([]);
    const state = await executionStateFor(t.db, 'acme', minted.proposal.id);
    expect(state.execution?.checks.map((c) => [c.attempt, c.outcome])).toEqual([
      [before + 1, 'not_found'],
      [before + 2, 'not_committed'],
    ]);
  });

  it('an execution left executing by a crash after the write committed: outcome_unknown after a minute, then succeeded; exactly one refund', async () => {
    const now = later();
    const minted = await refund(now);
    const real = clients()('payments');
    let committed!: () => void;
    const wrote = new Promise<void>((resolve) => (committed = resolve));
    // The process dies once the system of record has committed: the write never returns, nothing is recorded.
    const dying: SystemsWriteClient = {
      scope: real.scope,
      lookup: (path, options) => real.lookup(path, options),
      write: async (path, body, options) => {
        await real.write(path, body, options);
        committed();
        return new Promise(() => undefined);
      },
    };
    void executeCommand(t.db, {
      scope: minted.scope,
      jws: minted.jws,
      systems: systems.client,
      writeClient: dying,
      clock: () => now,
    });
    await wrote;
    const [started] = await t.db.select().from(executions).where(eq(executions.commandId, minted.commandId));
    expect(started?.status).toBe('executing');

    // Within the executor's own time, nothing is touched.
    expect(
      await reconcileExecutions(t.db, {
        now: new Date(now.getTime() + INTERRUPTED_AFTER_MS - 1_000),
        systems: clients(),
      }),
    ).toMatchObject({ checked: 0 });
    expect((await executionRow(started!.id)).status).toBe('executing');

    expect(
      await reconcileExecutions(t.db, { now: new Date(now.getTime() + INTERRUPTED_AFTER_MS), systems: clients() }),
    ).toEqual({ checked: 1, succeeded: 1, failed: 0, pending: 0 });
    expect(await executionRow(started!.id)).toMatchObject({ status: 'succeeded', nextCheckAt: null });
    expect((await proposalRow(t.db, minted.proposal.id)).status).toBe('succeeded');
    expect((await order()).refunds.filter((r) => r.idempotencyKey === minted.idempotencyKey)).toHaveLength(1);
    const audit = await auditRowsFor(t.db, minted.proposal.id);
    expect(audit.slice(-3).map((r) => [r.type, r.actorId, r.reasonCode])).toEqual([
      ['execution.outcome_unknown', 'reconciliation', 'interrupted'],
      ['execution.checked', 'reconciliation', 'confirmed'],
      ['execution.succeeded', 'reconciliation', 'reconciled'],
    ]);
  });

  it.each(['malformed', 'wrong_resource'])(
    '%s: succeeded only with the receipt the system of record validates',
    async (mode) => {
      const { minted, executionId, now } = await unknownOutcome(mode);
      expect(
        await reconcileExecutions(t.db, { now: new Date(now.getTime() + 30_000), systems: clients() }),
      ).toMatchObject({ succeeded: 1 });
      const execution = await executionRow(executionId);
      const [committed] = (await order()).refunds.filter((r) => r.idempotencyKey === minted.idempotencyKey);
      expect(execution.status).toBe('succeeded');
      // The stored receipt is the validated record (this order, this amount, this key), not the faulty answer.
      expect(execution.receipt).toMatchObject({
        id: committed!.id,
        orderId: 'ord_1842',
        amountMinor: 1000,
        idempotencyKey: minted.idempotencyKey,
      });
    },
  );

  it('a record that does not match the command never makes succeeded: the check and its reason are recorded', async () => {
    const { minted, executionId, now, before } = await unknownOutcome('timeout_after_commit');
    // The system answers the look-up with a record for another order (as a buggy or hostile system might).
    const lying = (scope: string): SystemsWriteClient => {
      const real = clients()(scope);
      return {
        ...real,
        async lookup(path, options) {
          const answer = await real.lookup(path, options);
          return answer.found ? { found: true, body: { ...(answer.body as object), orderId: 'ord_1843' } } : answer;
        },
      };
    };
    let at = new Date(now.getTime() + 30_000);
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await reconcileExecutions(t.db, { now: at, systems: lying })).toEqual({
        checked: 1,
        succeeded: 0,
        failed: 0,
        pending: 1,
      });
      const execution = await executionRow(executionId);
      expect(execution).toMatchObject({ status: 'outcome_unknown', attempts: before + attempt, receipt: null });
      at = execution.nextCheckAt!;
    }
    // Even far beyond the command's lifetime: a record exists, so it is never "failed" either.
    expect(await reconcileExecutions(t.db, { now: new Date(at.getTime() + 86_400_000), systems: lying })).toMatchObject(
      { pending: 1 },
    );
    expect((await proposalRow(t.db, minted.proposal.id)).status).toBe('outcome_unknown');
    const state = await executionStateFor(t.db, 'acme', minted.proposal.id);
    expect(state.execution?.checks).toHaveLength(4);
    expect(
      state.execution?.checks.every((c) => c.outcome === 'invalid_receipt' && c.reason?.includes('another order')),
    ).toBe(true);
    // The truth arrives: the next check settles it.
    expect(await reconcileExecutions(t.db, { now: later(86_400_000 * 3), systems: clients() })).toMatchObject({
      succeeded: 1,
    });
  });

  it('a system of record that cannot answer: recorded as unavailable, backed off, nothing decided', async () => {
    const { minted, executionId, now, before } = await unknownOutcome('timeout_after_commit');
    const down = writeClients('http://127.0.0.1:9', { payments: 'pay_unreachable_credential' }, 500);
    const at = new Date(minted.expiresAt.getTime() + 3_600_000);
    expect(at.getTime()).toBeGreaterThan(now.getTime());
    expect(await reconcileExecutions(t.db, { now: at, systems: down })).toEqual({
      checked: 1,
      succeeded: 0,
      failed: 0,
      pending: 1,
    });
    const execution = await executionRow(executionId);
    expect(execution).toMatchObject({ status: 'outcome_unknown', attempts: before + 1 });
    expect(execution.nextCheckAt).toEqual(new Date(at.getTime() + reconcileBackoffMs(before + 1)));
    const state = await executionStateFor(t.db, 'acme', minted.proposal.id);
    expect(state.execution?.checks.map((c) => c.outcome)).toEqual(['unavailable']);
    expect([0, 1, 2, 6, 7, 20].map(reconcileBackoffMs)).toEqual([
      30_000, 60_000, 120_000, 1_920_000, 3_600_000, 3_600_000,
    ]);
  });
});
