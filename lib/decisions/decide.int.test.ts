import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentKeys, decisions, memberships, outbox, type Proposal, policies } from '@/db/schema';
import { createAgentKey, grantRole } from '@/lib/admin/accounts';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import type { DecisionRequest } from '@/lib/decisions/requests';
import { newId } from '@/lib/ids';
import { submitProposal } from '@/lib/intake/intake';
import { payloadHash } from '@/lib/payload-hash';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { auditRowsFor, proposalRow, rowCounts } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { agentPrincipal, PEOPLE, type PersonName, type SeededWorld, seedWorld } from '@/test/world';
import { decide } from './decide';

const t = setupTestDatabase();
const systems = setupDemoSystems();

let world: SeededWorld;
let acme: AgentPrincipal;
let sequence = 0;

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
});

async function propose(
  agent: AgentPrincipal = acme,
  args: Record<string, unknown> = { sku: 'filter-blue', quantity: 2 },
): Promise<Proposal> {
  const body = { requestId: `req_decide_${++sequence}`, action: 'hold_stock', contractVersion: 1, args };
  const { proposal } = await submitProposal(t.db, agent, { text: JSON.stringify(body), value: body }, systems.client);
  expect(proposal.status).toBe('pending_approval');
  return proposal;
}

const approve = (proposal: Proposal, hash = proposal.payloadHash): DecisionRequest => ({
  decision: 'approve',
  payloadHash: hash,
});

function decideAs(person: PersonName, proposal: Proposal, request: DecisionRequest, now?: Date) {
  return decide(t.db, systems.client, { userId: world.userId(person), proposalId: proposal.id, request }, now);
}

/** The proposal, its decisions and its audit rows: what a refused decision must leave exactly as it was. */
async function snapshot(proposal: Proposal) {
  return {
    proposal: await proposalRow(t.db, proposal.id),
    decisions: await t.db.select().from(decisions).where(eq(decisions.proposalId, proposal.id)),
    audit: await auditRowsFor(t.db, proposal.id),
    counts: await rowCounts(t.db),
  };
}

describe('decide', () => {
  it('approves with the reviewed hash: status approved, one decision, proposal.approved audited, notification queued', async () => {
    const proposal = await propose();
    const now = new Date(proposal.createdAt.getTime() + 60_000);
    const updated = await decideAs('alice', proposal, approve(proposal), now);

    expect(updated).toMatchObject({
      id: proposal.id,
      status: 'approved',
      payloadHash: proposal.payloadHash,
      statusReason: null,
    });
    expect(updated.decidedAt?.getTime()).toBe(now.getTime());
    expect(await proposalRow(t.db, proposal.id)).toEqual(updated);

    const rows = await t.db.select().from(decisions).where(eq(decisions.proposalId, proposal.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      tenantId: 'acme',
      userId: world.userId('alice'),
      decision: 'approve',
      payloadHash: proposal.payloadHash,
      reason: null,
    });

    const audit = await auditRowsFor(t.db, proposal.id);
    expect(audit.map((row) => row.type)).toEqual(['proposal.created', 'proposal.approved', 'command.minted']);
    expect(audit[1]).toMatchObject({
      tenantId: 'acme',
      actorType: 'user',
      actorId: world.userId('alice'),
      payloadHash: proposal.payloadHash,
    });

    const topics = await t.db.select({ topic: outbox.topic }).from(outbox).where(eq(outbox.proposalId, proposal.id));
    expect(topics.map((row) => row.topic).sort()).toEqual(['command.minted', 'proposal.created', 'proposal.decided']);
  });

  it('lets an admin approve what needs an approver', async () => {
    const proposal = await propose();
    await expect(decideAs('carol', proposal, approve(proposal))).resolves.toMatchObject({ status: 'approved' });
  });

  it('refuses a hash that is not the stored one (409 hash_mismatch) and changes nothing', async () => {
    const proposal = await propose();
    const before = await snapshot(proposal);
    const other = payloadHash({ ...proposal.payload, args: { sku: 'filter-blue', quantity: 4 } });
    await expectApiError(decideAs('alice', proposal, approve(proposal, other)), {
      status: 409,
      kind: 'decision',
      code: 'hash_mismatch',
    });
    await expectApiError(decideAs('alice', proposal, { decision: 'reject', payloadHash: other, reason: 'wrong one' }), {
      status: 409,
      code: 'hash_mismatch',
    });
    expect(await snapshot(proposal)).toEqual(before);
  });

  it('refuses a viewer (dave): 403 forbidden_role, nothing changed', async () => {
    const proposal = await propose();
    const before = await snapshot(proposal);
    await expectApiError(decideAs('dave', proposal, approve(proposal)), {
      status: 403,
      kind: 'decision',
      code: 'forbidden_role',
    });
    await expectApiError(
      decideAs('dave', proposal, { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'no' }),
      {
        status: 403,
        code: 'forbidden_role',
      },
    );
    expect(await snapshot(proposal)).toEqual(before);
  });

  it('answers someone from another tenant (erin, globex) with 404 not_found, nothing changed', async () => {
    const proposal = await propose();
    const before = await snapshot(proposal);
    await expectApiError(decideAs('erin', proposal, approve(proposal)), {
      status: 404,
      kind: 'not_found',
      code: 'not_found',
    });
    expect(await snapshot(proposal)).toEqual(before);
  });

  it('answers an unknown proposal id with 404 not_found', async () => {
    await expectApiError(
      decide(t.db, systems.client, {
        userId: world.userId('alice'),
        proposalId: newId('prp'),
        request: { decision: 'approve', payloadHash: `sha256:${'0'.repeat(64)}` },
      }),
      { status: 404, code: 'not_found' },
    );
  });

  it('refuses a second approval after approval (409 already_decided), from anyone, and the approver’s own reject', async () => {
    const proposal = await propose();
    await decideAs('alice', proposal, approve(proposal));
    const before = await snapshot(proposal);
    await expectApiError(decideAs('bob', proposal, approve(proposal)), {
      status: 409,
      kind: 'decision',
      code: 'already_decided',
    });
    await expectApiError(decideAs('alice', proposal, approve(proposal)), { status: 409, code: 'already_decided' });
    await expectApiError(
      decideAs('alice', proposal, { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'changed my mind' }),
      {
        status: 409,
        code: 'already_decided',
      },
    );
    expect(await snapshot(proposal)).toEqual(before);
  });

  it('rejects with a reason: status rejected, the reason kept, proposal.rejected audited', async () => {
    const proposal = await propose();
    const updated = await decideAs('bob', proposal, {
      decision: 'reject',
      payloadHash: proposal.payloadHash,
      reason: 'Customer cancelled',
    });
    expect(updated).toMatchObject({ status: 'rejected', statusReason: 'Customer cancelled' });
    expect(updated.decidedAt).toBeInstanceOf(Date);
    const rows = await t.db.select().from(decisions).where(eq(decisions.proposalId, proposal.id));
    expect(rows).toMatchObject([{ userId: world.userId('bob'), decision: 'reject', reason: 'Customer cancelled' }]);
    expect((await auditRowsFor(t.db, proposal.id)).map((row) => row.type)).toEqual([
      'proposal.created',
      'proposal.rejected',
    ]);
    await expectApiError(decideAs('alice', proposal, approve(proposal)), { status: 409, code: 'already_decided' });
  });

  it('refuses a decision at or after expiresAt (409 expired) and moves the proposal to expired: a timeout never approves', async () => {
    const proposal = await propose();
    // One millisecond before expiry it still can be decided (here: a partial check that changes nothing).
    await expectApiError(
      decideAs(
        'alice',
        proposal,
        approve(proposal, `sha256:${'0'.repeat(64)}`),
        new Date(proposal.expiresAt.getTime() - 1),
      ),
      {
        status: 409,
        code: 'hash_mismatch',
      },
    );
    await expectApiError(decideAs('alice', proposal, approve(proposal), proposal.expiresAt), {
      status: 409,
      kind: 'decision',
      code: 'expired',
    });
    const after = await snapshot(proposal);
    expect(after.proposal).toMatchObject({ status: 'expired', decidedAt: proposal.expiresAt });
    expect(after.proposal.statusReason).toContain('a timeout never approves');
    expect(after.decisions).toEqual([]);
    expect(after.audit.map((row) => row.type)).toEqual(['proposal.created', 'proposal.expired']);
    expect(after.audit[1]).toMatchObject({ actorType: 'system', actorId: 'expiry', reasonCode: 'expired' });
    const topics = await t.db.select({ topic: outbox.topic }).from(outbox).where(eq(outbox.proposalId, proposal.id));
    expect(topics.map((row) => row.topic).sort()).toEqual(['proposal.created', 'proposal.expired']);
    // Afterwards it is simply decided: nobody approves or rejects an expired proposal.
    await expectApiError(decideAs('bob', proposal, approve(proposal), new Date(proposal.expiresAt.getTime() - 1)), {
      status: 409,
      code: 'already_decided',
    });
    await expectApiError(
      decideAs('bob', proposal, { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'late' }),
      {
        status: 409,
        code: 'already_decided',
      },
    );
  });

  it('expires an overdue proposal on a reject too (409 expired)', async () => {
    const proposal = await propose();
    await expectApiError(
      decideAs(
        'bob',
        proposal,
        { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'no' },
        new Date(proposal.expiresAt.getTime() + 1),
      ),
      {
        status: 409,
        code: 'expired',
      },
    );
    expect((await proposalRow(t.db, proposal.id)).status).toBe('expired');
  });

  it('refuses when the stored payload was tampered with after intake (409 hash_mismatch)', async () => {
    const proposal = await propose();
    await t.db.execute(
      sql`update proposals set payload = jsonb_set(payload, '{args,quantity}', '4'::jsonb) where id = ${proposal.id}`,
    );
    const tampered = await proposalRow(t.db, proposal.id);
    expect(tampered.payload).toMatchObject({ args: { quantity: 4 } });
    expect(tampered.payloadHash).toBe(proposal.payloadHash);
    const before = await snapshot(proposal);
    // Neither the hash the operator saw, nor the hash of what is now stored, approves it.
    await expectApiError(decideAs('alice', proposal, approve(proposal)), { status: 409, code: 'hash_mismatch' });
    await expectApiError(decideAs('alice', proposal, approve(proposal, payloadHash(tampered.payload))), {
      status: 409,
      code: 'hash_mismatch',
    });
    expect(await snapshot(proposal)).toEqual(before);
  });

  it('refuses the person an agent acts for (403 self_approval); someone else may approve', async () => {
    const { key, id } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: 'alice-assistant',
      actions: ['hold_stock'],
      grants: { warehouses: ['north'] },
    });
    await t.db
      .update(agentKeys)
      .set({ onBehalfOfUserId: world.userId('alice') })
      .where(eq(agentKeys.id, id));
    const assistant = await agentPrincipal(t.db, key);
    const proposal = await propose(assistant);
    await expectApiError(decideAs('alice', proposal, approve(proposal)), { status: 403, code: 'self_approval' });
    await expect(decideAs('bob', proposal, approve(proposal))).resolves.toMatchObject({ status: 'approved' });
  });

  describe('a revoked role takes effect immediately', () => {
    afterAll(async () => {
      await grantRole(t.db, { tenantId: 'acme', email: PEOPLE.bob, role: 'approver' });
    });

    it('answers bob with 404 not_found once his membership is gone, and forbidden_role once demoted', async () => {
      const proposal = await propose();
      await t.db
        .delete(memberships)
        .where(and(eq(memberships.tenantId, 'acme'), eq(memberships.userId, world.userId('bob'))));
      await expectApiError(decideAs('bob', proposal, approve(proposal)), { status: 404, code: 'not_found' });

      await grantRole(t.db, { tenantId: 'acme', email: PEOPLE.bob, role: 'viewer' });
      await expectApiError(decideAs('bob', proposal, approve(proposal)), { status: 403, code: 'forbidden_role' });

      await grantRole(t.db, { tenantId: 'acme', email: PEOPLE.bob, role: 'approver' });
      await expect(decideAs('bob', proposal, approve(proposal))).resolves.toMatchObject({ status: 'approved' });
    });
  });

  describe('a policy needing two distinct approvers', () => {
    beforeAll(async () => {
      await t.db.insert(policies).values({
        id: newId('pol'),
        tenantId: 'acme',
        action: 'hold_stock',
        version: 2,
        rules: [
          {
            id: 'holds-two-approvers',
            description: 'Two approvers',
            when: null,
            outcome: 'needs_approval',
            approvals: 2,
            role: 'approver',
          },
        ],
      });
    });

    it('stays pending after one approval, refuses the same person twice, approves on the second person', async () => {
      const proposal = await propose();
      expect(proposal.routing).toMatchObject({ rule: 'holds-two-approvers', policyVersion: 2, approvals: 2 });

      const first = await decideAs('alice', proposal, approve(proposal));
      expect(first).toMatchObject({ status: 'pending_approval', decidedAt: null });
      await expectApiError(decideAs('alice', proposal, approve(proposal)), { status: 409, code: 'already_decided' });

      const second = await decideAs('bob', proposal, approve(proposal));
      expect(second.status).toBe('approved');
      expect((await auditRowsFor(t.db, proposal.id)).map((row) => row.type)).toEqual([
        'proposal.created',
        'proposal.approval_added',
        'proposal.approved',
        'command.minted',
      ]);
    });

    it('ends the proposal on a rejection after a partial approval', async () => {
      const proposal = await propose();
      await decideAs('alice', proposal, approve(proposal));
      const rejected = await decideAs('bob', proposal, {
        decision: 'reject',
        payloadHash: proposal.payloadHash,
        reason: 'Wrong SKU',
      });
      expect(rejected.status).toBe('rejected');
      await expectApiError(decideAs('carol', proposal, approve(proposal)), { status: 409, code: 'already_decided' });
    });
  });
});
