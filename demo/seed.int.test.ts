import { and, asc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentKeys, auditEvents, memberships, policies, tenants, users } from '@/db/schema';
import { revokeAgentKey } from '@/lib/admin/accounts';
import { authenticateAgent, hashAgentKey } from '@/lib/agents/authenticate';
import { verifyPassword } from '@/lib/auth/password';
import { Refusal } from '@/lib/errors/refusal';
import { chainAllPending } from '@/lib/events/chainer';
import { setupTestDatabase } from '@/test/db';
import { agentPrincipal, agentRequest } from '@/test/world';
import { seedDemo } from './seed';
import { DEMO_AGENTS, DEMO_PEOPLE, DEMO_POLICIES, DEMO_TENANTS } from './world';

const t = setupTestDatabase();

type Credentials = Awaited<ReturnType<typeof seedDemo>>;
let first: Credentials;

/** Everything seeding writes, in a stable order. */
async function state() {
  await chainAllPending(t.db);
  return {
    tenants: await t.db.select().from(tenants).orderBy(asc(tenants.id)),
    users: await t.db.select().from(users).orderBy(asc(users.email)),
    memberships: await t.db.select().from(memberships).orderBy(asc(memberships.tenantId), asc(memberships.userId)),
    agentKeys: await t.db.select().from(agentKeys).orderBy(asc(agentKeys.id)),
    policies: await t.db.select().from(policies).orderBy(asc(policies.id)),
    audit: await t.db.select().from(auditEvents).orderBy(asc(auditEvents.tenantId), asc(auditEvents.seq)),
  };
}

beforeAll(async () => {
  first = await seedDemo(t.db);
});

describe('seedDemo', () => {
  it('creates the demo world of docs/design.md §13', async () => {
    expect((await t.db.select().from(tenants)).map((row) => row.id).sort()).toEqual(
      DEMO_TENANTS.map((tenant) => tenant.id).sort(),
    );
    expect(first.people.map(({ email, tenant, role }) => ({ email, tenant, role }))).toEqual(
      DEMO_PEOPLE.map(({ email, tenant, role }) => ({ email, tenant, role })),
    );
    expect(first.agents.map(({ tenant, name, actions }) => ({ tenant, name, actions }))).toEqual([
      { tenant: 'acme', name: 'acme-support-bot', actions: ['hold_stock', 'issue_refund'] },
      { tenant: 'globex', name: 'globex-bot', actions: ['hold_stock', 'issue_refund'] },
    ]);
    const roles = await t.db
      .select({ email: users.email, tenant: memberships.tenantId, role: memberships.role })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId));
    expect(roles.sort((a, b) => a.email.localeCompare(b.email))).toEqual([
      { email: 'alice@acme.test', tenant: 'acme', role: 'approver' },
      { email: 'bob@acme.test', tenant: 'acme', role: 'approver' },
      { email: 'carol@acme.test', tenant: 'acme', role: 'admin' },
      { email: 'dave@acme.test', tenant: 'acme', role: 'viewer' },
      { email: 'erin@globex.test', tenant: 'globex', role: 'approver' },
    ]);
  });

  it('stores passwords and keys only as hashes, and every password verifies', async () => {
    for (const person of first.people) {
      const [user] = await t.db.select().from(users).where(eq(users.email, person.email));
      expect(user?.passwordHash).toMatch(/^\$argon2id\$/);
      expect(user?.passwordHash).not.toContain(person.password);
      expect(await verifyPassword(user?.passwordHash, person.password)).toBe(true);
      expect(await verifyPassword(user?.passwordHash, `${person.password}x`)).toBe(false);
    }
    const keys = await t.db.select().from(agentKeys);
    for (const agent of first.agents) {
      expect(keys.some((row) => row.keyHash === hashAgentKey(agent.key))).toBe(true);
      expect(JSON.stringify(keys)).not.toContain(agent.key);
    }
  });

  it('changes nothing when run again with the returned credentials, and returns them unchanged', async () => {
    const before = await state();
    const second = await seedDemo(t.db, first);
    expect(second).toEqual(first);
    expect(await state()).toEqual(before);
  });

  it('upgrades a database seeded with the old refund policy to the aggregate one, and leaves a newer admin policy alone', async () => {
    const refundPolicies = async () =>
      (
        await t.db
          .select()
          .from(policies)
          .where(and(eq(policies.tenantId, 'acme'), eq(policies.action, 'issue_refund')))
      ).sort((a, b) => a.version - b.version);
    const [fresh] = await refundPolicies();
    expect(fresh).toMatchObject({
      version: 2,
      rules: DEMO_POLICIES.find((policy) => policy.action === 'issue_refund')!.rules,
    });
    expect(JSON.stringify(fresh?.rules)).toContain('"aggregate":{"windowHours":24}');

    // A demo database from before aggregate bounds: only the per-proposal v1.
    const legacy = [
      {
        id: 'refunds-over-100',
        description: 'Refunds above 100.00 need two approvers',
        when: { field: 'amountMinor', above: 10000 },
        outcome: 'needs_approval',
        approvals: 2,
        role: 'approver',
      },
    ];
    await t.db.delete(policies).where(and(eq(policies.tenantId, 'acme'), eq(policies.action, 'issue_refund')));
    await t.db
      .insert(policies)
      .values({ id: 'pol_legacy', tenantId: 'acme', action: 'issue_refund', version: 1, rules: legacy });
    await seedDemo(t.db, first);
    expect((await refundPolicies()).map((row) => [row.version, row.rules])).toEqual([
      [1, legacy],
      [2, fresh?.rules],
    ]);

    // An admin's newer version is the tenant's choice: seeding (twice) does not override it.
    await t.db
      .insert(policies)
      .values({ id: 'pol_admin', tenantId: 'acme', action: 'issue_refund', version: 3, rules: legacy });
    await seedDemo(t.db, first);
    await seedDemo(t.db, first);
    expect((await refundPolicies()).map((row) => row.version)).toEqual([1, 2, 3]);
  });

  it('gives agent keys that authenticate as their tenant agent with its grants', async () => {
    for (const agent of first.agents) {
      const principal = await agentPrincipal(t.db, agent.key);
      const demo = DEMO_AGENTS.find((candidate) => candidate.name === agent.name);
      expect(principal).toMatchObject({
        tenantId: agent.tenant,
        agentName: agent.name,
        allowedActions: agent.actions,
        grants: demo?.grants,
        onBehalfOfUserId: null,
      });
    }
  });

  it.each([
    ['no Authorization header', {}],
    ['a Basic header', { authorization: 'Basic YWxpY2U6c2VjcmV0' }],
    ['an unknown key', { authorization: `Bearer cs_agent_${'A'.repeat(43)}` }],
    ['a key without the prefix', { authorization: 'Bearer sk_live_0123456789' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])('does not authenticate %s', async (_label, headers) => {
    const request = new Request('http://countersign.test/api/v1/proposals', { headers });
    expect(await authenticateAgent(t.db, request)).toBeUndefined();
  });

  it('does not authenticate a key with a character added or removed', async () => {
    const key = first.agents[0]!.key;
    expect(await authenticateAgent(t.db, agentRequest(`${key}x`))).toBeUndefined();
    expect(await authenticateAgent(t.db, agentRequest(key.slice(0, -1)))).toBeUndefined();
  });

  it('stops authenticating a revoked key at once; seeding again issues a new key for that agent only', async () => {
    const acme = first.agents.find((agent) => agent.tenant === 'acme')!;
    const globex = first.agents.find((agent) => agent.tenant === 'globex')!;
    const principal = await agentPrincipal(t.db, acme.key);

    const revoked = await revokeAgentKey(t.db, principal.keyId);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect(await authenticateAgent(t.db, agentRequest(acme.key))).toBeUndefined();
    await expect(revokeAgentKey(t.db, principal.keyId)).rejects.toBeInstanceOf(Refusal);

    const third = await seedDemo(t.db, first);
    const newAcme = third.agents.find((agent) => agent.tenant === 'acme')!;
    expect(newAcme.key).not.toBe(acme.key);
    expect(third.agents.find((agent) => agent.tenant === 'globex')?.key).toBe(globex.key);
    expect(third.people).toEqual(first.people);
    expect((await agentPrincipal(t.db, newAcme.key)).agentName).toBe('acme-support-bot');
    expect(await authenticateAgent(t.db, agentRequest(acme.key))).toBeUndefined();

    await chainAllPending(t.db);
    const audit = await t.db.select().from(auditEvents).where(eq(auditEvents.type, 'agent_key.revoked'));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ tenantId: 'acme' });
  });
});
