import { and, count, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, decisions, intakeAttempts, outbox, type Proposal, proposals } from '@/db/schema';
import { createUser, grantRole } from '@/lib/admin/accounts';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { Refusal } from '@/lib/errors/refusal';
import { GENESIS_HASH } from '@/lib/events/append';
import { submitProposal } from '@/lib/intake/intake';
import { setupTestDatabase } from '@/test/db';
import { auditChain, auditRowsFor, proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { decide } from './decide';

/**
 * Real concurrency (row locks, unique races) needs a real server: this file runs only in the
 * integration-postgres project (vitest.config.ts excludes *.postgres.int.test.ts elsewhere).
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();
if (t.driver !== 'postgres') {
  throw new Error('race.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}

let world: SeededWorld;
let acme: AgentPrincipal;

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
});

const holdBody = (requestId: string, quantity = 2) => ({
  requestId,
  action: 'hold_stock',
  contractVersion: 1,
  args: { sku: 'filter-blue', quantity },
});

function submit(body: object) {
  return submitProposal(t.db, acme, { text: JSON.stringify(body), value: body }, systems.client);
}

async function propose(requestId: string): Promise<Proposal> {
  return (await submit(holdBody(requestId))).proposal;
}

function codeOf(result: PromiseSettledResult<unknown>): string {
  if (result.status === 'fulfilled') return 'ok';
  return result.reason instanceof Refusal ? result.reason.code : `unexpected: ${String(result.reason)}`;
}

async function countWhere(table: typeof decisions | typeof outbox, proposalId: string) {
  const [row] = await t.db.select({ n: count() }).from(table).where(eq(table.proposalId, proposalId));
  return row?.n ?? 0;
}

describe('concurrent decisions (PostgreSQL)', () => {
  it.each([1, 2, 3, 4, 5])(
    'two approvers at once on a one-approver proposal: exactly one wins (round %i)',
    async (round) => {
      const proposal = await propose(`req_race_approve_${round}`);
      const request = { decision: 'approve' as const, payloadHash: proposal.payloadHash };
      const results = await Promise.allSettled([
        decide(t.db, systems.client, { userId: world.userId('alice'), proposalId: proposal.id, request }),
        decide(t.db, systems.client, { userId: world.userId('bob'), proposalId: proposal.id, request }),
      ]);
      expect(results.map(codeOf).sort()).toEqual(['already_decided', 'ok']);
      expect((await proposalRow(t.db, proposal.id)).status).toBe('approved');
      expect(await countWhere(decisions, proposal.id)).toBe(1);
      expect((await auditRowsFor(t.db, proposal.id)).map((row) => row.type)).toEqual([
        'proposal.created',
        'proposal.approved',
        'command.minted',
      ]);
      expect(await countWhere(outbox, proposal.id)).toBe(3);
    },
  );

  it.each([1, 2, 3, 4, 5])(
    'an approve and a reject at once: deny wins, the final status is rejected (round %i)',
    async (round) => {
      const proposal = await propose(`req_race_mixed_${round}`);
      const results = await Promise.allSettled([
        decide(t.db, systems.client, {
          userId: world.userId('alice'),
          proposalId: proposal.id,
          request: { decision: 'approve', payloadHash: proposal.payloadHash },
        }),
        decide(t.db, systems.client, {
          userId: world.userId('bob'),
          proposalId: proposal.id,
          request: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'Not now' },
        }),
      ]);
      const [approveResult, rejectResult] = results.map(codeOf);
      // The reject always lands; the approve either came first (and was overruled) or found it rejected.
      expect(rejectResult).toBe('ok');
      expect(['ok', 'already_decided']).toContain(approveResult);
      const row = await proposalRow(t.db, proposal.id);
      expect(row).toMatchObject({ status: 'rejected', statusReason: 'Not now' });
      const types = (await auditRowsFor(t.db, proposal.id)).map((r) => r.type);
      expect(types).toEqual(
        approveResult === 'ok'
          ? ['proposal.created', 'proposal.approved', 'command.minted', 'proposal.rejected']
          : ['proposal.created', 'proposal.rejected'],
      );
      expect(await countWhere(decisions, proposal.id)).toBe(approveResult === 'ok' ? 2 : 1);
    },
  );

  it('20 approvers at once on a one-approver proposal: exactly one decision completes the quorum', async () => {
    const proposal = await propose('req_race_twenty');
    const approvers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const email = `racer${i}@acme.test`;
        await createUser(t.db, { email, name: `Racer ${i}` });
        return (await grantRole(t.db, { tenantId: 'acme', email, role: 'approver' })).userId;
      }),
    );
    const request = { decision: 'approve' as const, payloadHash: proposal.payloadHash };
    const results = await Promise.allSettled(
      approvers.map((userId) => decide(t.db, systems.client, { userId, proposalId: proposal.id, request })),
    );
    const codes = results.map(codeOf);
    expect(codes.filter((code) => code === 'ok')).toHaveLength(1);
    expect(codes.filter((code) => code === 'already_decided')).toHaveLength(19);
    expect((await proposalRow(t.db, proposal.id)).status).toBe('approved');
    expect(await countWhere(decisions, proposal.id)).toBe(1);
    const types = (await auditRowsFor(t.db, proposal.id)).map((r) => r.type);
    expect(types.filter((type) => type === 'proposal.approved')).toHaveLength(1);
    expect(types).toEqual(['proposal.created', 'proposal.approved', 'command.minted']);
  });
});

describe('concurrent intake (PostgreSQL)', () => {
  it('10 identical submissions of one requestId at once make one proposal, and all answer with its id', async () => {
    const body = holdBody('req_race_intake');
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => submit(body)));
    const ids = new Set(outcomes.map((outcome) => outcome.proposal.id));
    expect(ids.size).toBe(1);
    expect(outcomes.filter((outcome) => outcome.created)).toHaveLength(1);
    const [id] = [...ids];

    const rows = await t.db
      .select()
      .from(proposals)
      .where(and(eq(proposals.tenantId, 'acme'), eq(proposals.requestId, 'req_race_intake')));
    expect(rows.map((row) => row.id)).toEqual([id]);
    expect((await auditRowsFor(t.db, id!)).map((row) => row.type)).toEqual(['proposal.created']);
    expect(await countWhere(outbox, id!)).toBe(1);
    const attempts = await t.db.select().from(intakeAttempts).where(eq(intakeAttempts.proposalId, id!));
    // One accepted attempt, and each of the nine twins recorded as a replay of it.
    expect(attempts.map((attempt) => attempt.outcome).sort()).toEqual([
      'accepted',
      ...Array<string>(9).fill('replayed'),
    ]);
  });

  it('one requestId with two different payloads at once: one proposal; the other payload gets idempotency_conflict', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => submit(holdBody('req_race_conflict', i % 2 === 0 ? 1 : 2))),
    );
    const rows = await t.db
      .select()
      .from(proposals)
      .where(and(eq(proposals.tenantId, 'acme'), eq(proposals.requestId, 'req_race_conflict')));
    expect(rows).toHaveLength(1);
    const winnerQuantity = rows[0]?.payload.args.quantity;
    results.forEach((result, i) => {
      const quantity = i % 2 === 0 ? 1 : 2;
      if (quantity === winnerQuantity) {
        expect(result.status).toBe('fulfilled');
        if (result.status === 'fulfilled') expect(result.value.proposal.id).toBe(rows[0]?.id);
      } else {
        expect(codeOf(result)).toBe('idempotency_conflict');
      }
    });
  });

  it('keeps the audit chain contiguous and linked under concurrent appends', async () => {
    const chain = await auditChain(t.db, 'acme');
    expect(chain.length).toBeGreaterThan(20);
    chain.forEach((row, index) => {
      expect(row.seq).toBe(index + 1);
      expect(row.prevHash).toBe(index === 0 ? GENESIS_HASH : chain[index - 1]?.hash);
    });
    const [event] = await t.db.select({ n: count() }).from(auditEvents).where(eq(auditEvents.tenantId, 'acme'));
    expect(event?.n).toBe(chain.length);
  });
});
