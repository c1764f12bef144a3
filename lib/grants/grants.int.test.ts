import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, decisions, grants, memberships, type Proposal } from '@/db/schema';
import { createAgentKey } from '@/lib/admin/accounts';
import { changeRole, removeMembership } from '@/lib/admin/members';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { proposalDetail } from '@/lib/api/responses/proposal-json';
import { buildEvidenceBundle } from '@/lib/audit/bundle';
import { verifyBundle } from '@/lib/audit/bundle-verify';
import { decisionsPage } from '@/lib/audit/history';
import { decide } from '@/lib/decisions/decide';
import { chainAllPending } from '@/lib/events/chainer';
import { submitProposal } from '@/lib/intake/intake';
import { setPasskeysRequired } from '@/lib/passkeys/tenant-setting';
import { publishPolicy } from '@/lib/policy/publish';
import { commandKeys } from '@/lib/signing/keys';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { setupDemoSystems } from '@/test/systems';
import { agentPrincipal, type PersonName, seededWorld } from '@/test/world';
import { createGrant } from './create';
import { revokeGrant } from './end';
import { listGrants } from './list';
import type { GrantRequest } from './requests';

/** Standing grants (docs/grants.md): what they cover, what they never cover, and what ends them. */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);
let sequence = 0;

beforeAll(async () => {
  // A first hold and refund on the resources used below: later proposals carry no "first use" flag.
  await hold();
  for (const orderId of ['ord_q5001', 'ord_q5002', 'ord_q5003']) await refund(orderId, 100);
});

async function submit(agent: AgentPrincipal, action: string, args: Record<string, unknown>): Promise<Proposal> {
  const body = { requestId: `req_grants_${++sequence}`, action, contractVersion: 1, args };
  return (await submitProposal(t.db, agent, { text: JSON.stringify(body), value: body }, systems.client)).proposal;
}
const hold = (args: Record<string, unknown> = { sku: 'filter-blue', quantity: 1 }, agent?: AgentPrincipal) =>
  submit(agent ?? seeded.acme, 'hold_stock', args);
const refund = (orderId: string, amountMinor: number) =>
  submit(seeded.acme, 'issue_refund', { orderId, amountMinor, currency: 'EUR', reason: 'damaged in transit' });

const approveAs = (person: PersonName, proposal: Proposal) =>
  decide(t.db, systems.client, {
    userId: seeded.world.userId(person),
    proposalId: proposal.id,
    request: { decision: 'approve', payloadHash: proposal.payloadHash },
  });

const TERMS = { minutes: 60, maxCount: 5, sameResource: false, reason: 'Routine holds during the sale' } satisfies Omit<
  GrantRequest,
  'proposalId'
>;

/** A proposal `person` approved, and a grant they made from it. */
async function granted(person: PersonName = 'alice', terms: Partial<GrantRequest> = {}, source?: Proposal) {
  const from = source ?? (await hold());
  await approveAs(person, from);
  return createGrant(t.db, {
    tenantId: 'acme',
    userId: seeded.world.userId(person),
    request: { ...TERMS, proposalId: from.id, ...terms },
  });
}

async function endAll() {
  await t.db.update(grants).set({ endedAt: new Date(), endReason: 'revoked' });
}

describe('a grant covers', () => {
  it('the next proposal of the same action and agent: approved under the grant, audited in the granter’s name, no decision row, command minted', async () => {
    await endAll();
    const grant = await granted('alice');
    const covered = await hold();
    expect(covered).toMatchObject({ status: 'approved', grantId: grant.id });
    expect(proposalDetail(covered, [], 'http://countersign.test', 'agent')).toMatchObject({
      status: 'approved',
      decisions: [],
      grantId: grant.id,
    });
    expect(await t.db.select().from(decisions).where(eq(decisions.proposalId, covered.id))).toEqual([]);
    await chainAllPending(t.db);
    const chained = await t.db.select().from(auditEvents).where(eq(auditEvents.proposalId, covered.id));
    const approved = chained.find((row) => row.type === 'proposal.approved');
    expect(approved).toMatchObject({
      actorType: 'user',
      actorId: seeded.world.userId('alice'),
      reasonCode: 'grant',
      data: expect.objectContaining({ grant: grant.id, used: 1, maxCount: 5 }),
    });
    expect(chained.map((row) => row.type)).toEqual(
      expect.arrayContaining(['proposal.created', 'proposal.approved', 'command.minted']),
    );
    expect((await t.db.select().from(grants).where(eq(grants.id, grant.id)))[0]).toMatchObject({ usedCount: 1 });

    // History says who stood behind it; the bundle verifies and tells the same story.
    const page = await decisionsPage(t.db, 'acme', {});
    expect(page.items.find((row) => row.id === covered.id)?.grant).toEqual({ id: grant.id, from: 'Alice' });
    const keys = await commandKeys();
    const report = await verifyBundle(
      JSON.parse(JSON.stringify(await buildEvidenceBundle(t.db, 'acme', covered.id, keys))),
      keys.jwks,
    );
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.verified.join('\n')).toContain(
      `approved under grant ${grant.id} from Alice (${seeded.world.userId('alice')})`,
    );
  });

  it('up to its count, then proposals wait for a person again', async () => {
    await endAll();
    const grant = await granted('alice', { maxCount: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await hold()).status);
    expect(statuses).toEqual(['approved', 'approved', 'pending_approval']);
    const { grants: listed } = await listGrants(t.db, 'acme', { state: 'all' });
    expect(listed.find((row) => row.id === grant.id)).toMatchObject({ usedCount: 2, state: 'used_up' });
  });

  it('money up to its total in the source proposal’s currency, counted exactly', async () => {
    await endAll();
    const source = await refund('ord_q5001', 1000);
    await granted('alice', { maxTotalMinor: 2500, maxCount: 10 }, source);
    const results = [];
    for (const amount of [1000, 1000, 1000, 500]) results.push([amount, (await refund('ord_q5002', amount)).status]);
    // 1000 + 1000 fit in 2500; a third 1000 would make 3000; 500 makes exactly 2500.
    expect(results).toEqual([
      [1000, 'approved'],
      [1000, 'approved'],
      [1000, 'pending_approval'],
      [500, 'approved'],
    ]);
  });

  it('only the same resource when it says so', async () => {
    await endAll();
    await granted('alice', { sameResource: true });
    expect((await hold({ sku: 'filter-blue', quantity: 1 })).status).toBe('approved');
    await hold({ sku: 'filter-gray', quantity: 1 }); // first use of filter-gray: flagged anyway
    expect((await hold({ sku: 'filter-gray', quantity: 1 })).status).toBe('pending_approval');
  });
});

describe('a grant never covers', () => {
  it('a flagged proposal (near a bound)', async () => {
    await endAll();
    await granted('alice');
    const nearBound = await hold({ sku: 'filter-blue', quantity: 4 });
    expect(nearBound.flags.map((flag) => flag.kind)).toContain('near_bound');
    expect(nearBound.status).toBe('pending_approval');
  });

  it('a flagged proposal (first use of a resource)', async () => {
    await endAll();
    await granted('alice', { maxCount: 10 }, await refund('ord_q5001', 100));
    const firstUse = await refund('ord_pl01', 100);
    expect(firstUse.flags.map((flag) => flag.kind)).toContain('first_use');
    expect(firstUse.status).toBe('pending_approval');
  });

  it('a proposal whose rule needs two approvers', async () => {
    await endAll();
    const source = await refund('ord_q5003', 1000);
    await granted('alice', { maxCount: 10 }, source);
    const big = await refund('ord_q5003', 15_000);
    expect(big.routing).toMatchObject({ rule: 'refunds-over-100', approvals: 2 });
    expect(big.status).toBe('pending_approval');
  });

  it('another agent’s or another action’s proposal', async () => {
    await endAll();
    await granted('alice');
    const { key } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: `other-bot-${sequence}`,
      actions: ['hold_stock'],
      grants: { warehouses: ['north'] },
    });
    const other = await agentPrincipal(t.db, key);
    expect((await hold({ sku: 'filter-blue', quantity: 1 }, other)).status).toBe('pending_approval');
    expect((await refund('ord_q5001', 100)).status).toBe('pending_approval');
  });
});

describe('a grant ends', () => {
  it('when revoked: the next proposal waits; revoking twice is 409, a foreign or unknown id 404, a colleague 403', async () => {
    await endAll();
    const grant = await granted('alice');
    await expectApiError(
      revokeGrant(t.db, { by: { type: 'user', id: seeded.world.userId('bob'), tenantId: 'acme' }, grantId: grant.id }),
      { status: 403, code: 'forbidden_role' },
    );
    await expectApiError(
      revokeGrant(t.db, {
        by: { type: 'user', id: seeded.world.userId('erin'), tenantId: 'globex' },
        grantId: grant.id,
      }),
      { status: 404, code: 'not_found' },
    );
    await expectApiError(
      revokeGrant(t.db, {
        by: { type: 'user', id: seeded.world.userId('alice'), tenantId: 'acme' },
        grantId: 'g_unknown',
      }),
      { status: 404, code: 'not_found' },
    );
    const revoked = await revokeGrant(t.db, {
      by: { type: 'user', id: seeded.world.userId('alice'), tenantId: 'acme' },
      grantId: grant.id,
      reason: 'Sale over',
    });
    expect(revoked).toMatchObject({ state: 'revoked', endNote: 'Sale over', grantedBy: { name: 'Alice' } });
    expect((await hold()).status).toBe('pending_approval');
    await expectApiError(
      revokeGrant(t.db, {
        by: { type: 'user', id: seeded.world.userId('alice'), tenantId: 'acme' },
        grantId: grant.id,
      }),
      { status: 409, code: 'grant_ended' },
    );
  });

  it('an admin may revoke anyone’s grant', async () => {
    await endAll();
    const grant = await granted('alice');
    expect(
      await revokeGrant(t.db, {
        by: { type: 'user', id: seeded.world.userId('carol'), tenantId: 'acme' },
        grantId: grant.id,
      }),
    ).toMatchObject({ state: 'revoked', endedBy: seeded.world.userId('carol') });
  });

  it('when the granter’s role changes, or they leave the tenant', async () => {
    await endAll();
    const bob = seeded.world.userId('bob');
    const carol = seeded.world.userId('carol');
    const byRole = await granted('bob');
    await changeRole(t.db, { tenantId: 'acme', userId: bob, role: 'admin', actor: { type: 'user', id: carol } });
    expect((await hold()).status).toBe('pending_approval');
    expect((await t.db.select().from(grants).where(eq(grants.id, byRole.id)))[0]).toMatchObject({
      endReason: 'role_changed',
      endedBy: carol,
    });
    await changeRole(t.db, { tenantId: 'acme', userId: bob, role: 'approver', actor: { type: 'user', id: carol } });

    const byRemoval = await granted('bob');
    await removeMembership(t.db, { tenantId: 'acme', userId: bob, actor: { type: 'user', id: carol } });
    expect((await hold()).status).toBe('pending_approval');
    expect((await t.db.select().from(grants).where(eq(grants.id, byRemoval.id)))[0]).toMatchObject({
      endReason: 'granter_removed',
    });
    await t.db.insert(memberships).values({ tenantId: 'acme', userId: bob, role: 'approver' });
  });

  it('when the action’s policy changes', async () => {
    await endAll();
    const grant = await granted('alice');
    const [current] = await t.db.select().from(grants).where(eq(grants.id, grant.id));
    await publishPolicy(
      t.db,
      {
        tenantId: 'acme',
        action: 'hold_stock',
        version: current!.policyVersion + 1,
        rules: [
          {
            id: 'holds-one-approver',
            description: 'Every stock hold needs one approver',
            when: null,
            outcome: 'needs_approval',
            approvals: 1,
            role: 'approver',
          },
        ],
        note: 'same rule, new version',
      },
      { type: 'user', id: seeded.world.userId('carol') },
    );
    expect((await hold()).status).toBe('pending_approval');
    expect((await t.db.select().from(grants).where(eq(grants.id, grant.id)))[0]).toMatchObject({
      endReason: 'policy_changed',
    });
    await chainAllPending(t.db);
    const ended = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.type, 'grant.ended'), eq(auditEvents.tenantId, 'acme')));
    expect(ended.map((row) => [row.reasonCode, row.data.grant])).toContainEqual(['policy_changed', grant.id]);
  });

  it('when the tenant starts requiring a passkey on every approval', async () => {
    await endAll();
    const grant = await granted('alice');
    await setPasskeysRequired(t.db, 'acme', true, { type: 'system', id: 'cli' });
    try {
      expect((await t.db.select().from(grants).where(eq(grants.id, grant.id)))[0]).toMatchObject({
        endReason: 'policy_changed',
      });
      expect((await hold()).status).toBe('pending_approval');
    } finally {
      await setPasskeysRequired(t.db, 'acme', false, { type: 'system', id: 'cli' });
    }
  });

  it('at its expiry', async () => {
    await endAll();
    const source = await hold();
    await approveAs('alice', source);
    const past = new Date(Date.now() - 2 * 60_000);
    await createGrant(
      t.db,
      {
        tenantId: 'acme',
        userId: seeded.world.userId('alice'),
        request: { ...TERMS, minutes: 1, proposalId: source.id },
      },
      past,
    );
    expect((await hold()).status).toBe('pending_approval');
  });
});

describe('making a grant', () => {
  it.each([
    ['a proposal the person did not approve', 'bob', 409, 'not_your_approval'],
    ['by a viewer', 'dave', 403, 'forbidden_role'],
    ['from another tenant', 'erin', 404, 'not_found'],
  ] as const)('is refused %s, writing nothing', async (_why, person, status, code) => {
    const source = await hold();
    await approveAs('alice', source);
    const before = await t.db.select().from(grants);
    await expectApiError(
      createGrant(t.db, {
        tenantId: person === 'erin' ? 'globex' : 'acme',
        userId: seeded.world.userId(person),
        request: { ...TERMS, proposalId: source.id },
      }),
      { status, code },
    );
    expect(await t.db.select().from(grants)).toEqual(before);
  });

  it('is refused twice from one proposal, from a two-approver proposal, and with a money cap on a hold', async () => {
    await endAll();
    const source = await hold();
    await approveAs('alice', source);
    await expectApiError(
      createGrant(t.db, {
        tenantId: 'acme',
        userId: seeded.world.userId('alice'),
        request: { ...TERMS, maxTotalMinor: 100, proposalId: source.id },
      }),
      { status: 422, code: 'invalid_grant' },
    );
    await createGrant(t.db, {
      tenantId: 'acme',
      userId: seeded.world.userId('alice'),
      request: { ...TERMS, proposalId: source.id },
    });
    await expectApiError(
      createGrant(t.db, {
        tenantId: 'acme',
        userId: seeded.world.userId('alice'),
        request: { ...TERMS, proposalId: source.id },
      }),
      { status: 409, code: 'already_granted' },
    );

    const big = await refund('ord_q5003', 12_000);
    await approveAs('alice', big);
    await expectApiError(
      createGrant(t.db, {
        tenantId: 'acme',
        userId: seeded.world.userId('alice'),
        request: { ...TERMS, proposalId: big.id },
      }),
      { status: 409, code: 'not_grantable' },
    );
  });
});
