import { eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { decisions, outbox, type Proposal, proposals } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { decide } from '@/lib/decisions/decide';
import { setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { auditRowsFor, proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { expireOverdue } from './expire-proposals';

const t = setupTestDatabase();
const systems = setupDemoSystems();

let world: SeededWorld;
let acme: AgentPrincipal;
let globex: AgentPrincipal;
let sequence = 0;

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
  globex = await world.agent('globex');
});

async function propose(agent: AgentPrincipal, now: Date): Promise<Proposal> {
  const sku = agent.tenantId === 'acme' ? 'filter-blue' : 'filter-green';
  const body = {
    requestId: `req_sweep_${++sequence}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku, quantity: 1 },
  };
  return (await submitAs(t.db, systems.client, agent, body, { now })).proposal;
}

describe('expireOverdue', () => {
  it('expires overdue pending proposals in batches, each audited with an outbox row; leaves the rest alone', async () => {
    const created = new Date('2030-01-01T00:00:00Z');
    const overdue = [
      await propose(acme, created),
      await propose(globex, created),
      await propose(acme, created),
      await propose(acme, created),
      await propose(globex, created),
    ];
    const decided = await propose(acme, created);
    await decide(
      t.db,
      systems.client,
      {
        userId: world.userId('alice'),
        proposalId: decided.id,
        request: { decision: 'approve', payloadHash: decided.payloadHash },
      },
      created,
    );
    const fresh = await propose(acme, new Date('2030-01-01T12:00:00Z'));

    const sweepAt = new Date('2030-01-02T06:00:00Z'); // 24 h after `created`, before 24 h after `fresh`
    // A batch of two: three transactions, five proposals.
    expect(await expireOverdue(t.db, sweepAt, 2)).toBe(5);
    for (const proposal of overdue) {
      const row = await proposalRow(t.db, proposal.id);
      expect(row).toMatchObject({ status: 'expired', decidedAt: sweepAt });
      expect(row.statusReason).toBe('No decision before 2030-01-02 00:00 UTC; a timeout never approves.');
      const audit = await auditRowsFor(t.db, proposal.id);
      expect(audit.map((r) => [r.type, r.actorType, r.actorId, r.reasonCode])).toEqual([
        ['proposal.created', 'agent', proposal.agentKeyId, 'needs_approval'],
        ['proposal.expired', 'system', 'expiry', 'expired'],
      ]);
      const topics = await t.db.select({ topic: outbox.topic }).from(outbox).where(eq(outbox.proposalId, proposal.id));
      expect(topics.map((r) => r.topic).sort()).toEqual(['proposal.created', 'proposal.expired']);
    }
    expect((await proposalRow(t.db, decided.id)).status).toBe('approved');
    expect((await proposalRow(t.db, fresh.id)).status).toBe('pending_approval');
    // Nothing is ever approved by a timeout, and a second sweep finds nothing.
    const ids = overdue.map((p) => p.id);
    expect(await t.db.select().from(decisions).where(inArray(decisions.proposalId, ids))).toEqual([]);
    expect(await expireOverdue(t.db, sweepAt, 2)).toBe(0);
    // The later one goes when its own time comes.
    expect(await expireOverdue(t.db, fresh.expiresAt)).toBe(1);
    const statuses = await t.db.select({ status: proposals.status }).from(proposals).where(eq(proposals.id, fresh.id));
    expect(statuses).toEqual([{ status: 'expired' }]);
  });
});
