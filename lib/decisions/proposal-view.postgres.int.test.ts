import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { executions, proposals } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, executeToUnknownOutcome, writeClients } from '@/test/fixtures/jobs';
import { proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { readProposalView } from './proposal-view';

/**
 * A poll of a proposal racing reconciliation. Needs a real server (two connections, a lock that
 * makes one wait): runs only in the integration-postgres project.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();
if (t.driver !== 'postgres') {
  throw new Error('proposal-view.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}

let world: SeededWorld;
let acme: AgentPrincipal;

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
});

/** Resolves once a session waits for a lock on `table`: the reader is parked between its reads. */
async function someoneWaitsOn(table: string): Promise<void> {
  for (;;) {
    const [row] = await t.db
      .select({ waiting: sql<number>`count(*)::int` })
      .from(sql`pg_locks`)
      .where(sql`not granted and relation = ${table}::regclass`);
    if (Number(row?.waiting) > 0) return;
  }
}

describe('readProposalView', () => {
  it('reads the proposal and its execution from one snapshot while reconciliation commits between the reads', async () => {
    const now = new Date();
    const body = {
      requestId: 'req_snapshot_1',
      action: 'issue_refund',
      contractVersion: 1,
      args: { orderId: 'ord_1842', amountMinor: 1000, currency: 'USD', reason: 'Customer requested a partial refund' },
    };
    const minted = await approvedCommand(t.db, systems.client, acme, world.userId('alice'), body, now);
    const faulted = await fetch(`${systems.systems.service.url}/__faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'refunds', mode: 'timeout_before_commit' }),
    });
    expect(faulted.ok).toBe(true);
    const { executionId } = await executeToUnknownOutcome(
      t.db,
      minted,
      {
        systems: systems.client,
        writeClient: writeClients(systems.systems.service.url, systems.systems.credentials)('payments'),
      },
      now,
    );
    expect((await proposalRow(t.db, minted.proposal.id)).status).toBe('outcome_unknown');

    // Reconciliation's commit, held open: both rows say failed, and until it commits the `commands`
    // table is locked, so a reader that reads the proposal first waits before the execution.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const reconciliation = t.db.transaction(async (tx) => {
      await tx.execute(sql`lock table commands in access exclusive mode`);
      await tx
        .update(executions)
        .set({ status: 'failed', errorCode: 'not_applied', nextCheckAt: null })
        .where(eq(executions.id, executionId));
      await tx.update(proposals).set({ status: 'failed' }).where(eq(proposals.id, minted.proposal.id));
      locked();
      await released;
    });
    await lockTaken;

    const reading = readProposalView(t.db, 'acme', minted.proposal.id);
    await someoneWaitsOn('commands');
    release();
    await reconciliation;
    const view = await reading;

    // Read one by one, the proposal came before the commit and the execution after it:
    // `outcome_unknown` beside `failed`. From one snapshot the two always agree.
    expect(view?.state.execution?.status).toBe(view?.proposal.status);
    expect((await readProposalView(t.db, 'acme', minted.proposal.id))?.state.execution?.status).toBe('failed');
  });
});
