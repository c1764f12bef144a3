/**
 * Intake through the real POST /api/v1/proposals with the process's read cache on (as
 * lib/database.ts gives the server): once warm, the key, the tenant's contracts, the policy and
 * whether the tenant has standing grants are not read again; every change an admin makes is what the very next request
 * sees, although an entry here would otherwise be kept for an hour.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { POST as proposalsRoute } from '@/app/api/v1/proposals/route';
import { agentKeys } from '@/db/schema';
import { createAgentKey } from '@/lib/admin/accounts';
import { revokeKey, rotateAgentKey } from '@/lib/admin/agent-keys';
import { authenticateAgent } from '@/lib/agents/authenticate';
import { type AttachedReadCache, attachReadCache } from '@/lib/cache/read-cache';
import { decide } from '@/lib/decisions/decide';
import { setContractStatus } from '@/lib/definitions/set-status';
import { createGrant } from '@/lib/grants/create';
import { publishPolicy } from '@/lib/policy/publish';
import { savePolicies } from '@/lib/policy/save';
import { setupTestDatabase } from '@/test/db';
import { proposalRow } from '@/test/queries';
import { setupRouteSystems } from '@/test/systems';
import { agentRequest, type SeededWorld, seedWorld } from '@/test/world';

// The agent routes need no session; next-auth itself does not load outside Next.
vi.mock('@/lib/auth', () => ({ auth: async () => null }));

const t = setupTestDatabase();
const systems = await setupRouteSystems(t);
const HOUR = 3_600_000;
let world: SeededWorld;
let attached: AttachedReadCache;

beforeAll(async () => {
  world = await seedWorld(t.db);
  attached = attachReadCache(t.db, t.handle.listen, { maxAgeMs: HOUR });
  await vi.waitFor(() => expect(attached.cache.stats().live).toBe(true));
});
afterAll(async () => {
  await attached.stop();
});

let sequence = 0;
const refund = (amountMinor = 100) => ({
  requestId: `req_cached_${++sequence}`,
  action: 'issue_refund',
  contractVersion: 1,
  args: { orderId: 'ord_1842', amountMinor, currency: 'USD', reason: 'Customer asked' },
});
const hold = (contractVersion: number) => ({
  requestId: `req_cached_${++sequence}`,
  action: 'hold_stock',
  contractVersion,
  args: { sku: 'filter-blue', quantity: 1 },
});

async function post(
  key: string,
  body: unknown,
): Promise<{ status: number; body: { proposal?: { id: string }; error?: { code: string } } }> {
  const response = await proposalsRoute(
    agentRequest(key, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  );
  return { status: response.status, body: await response.json() };
}

async function routingOf(response: Awaited<ReturnType<typeof post>>) {
  expect(response.status).toBe(201);
  return (await proposalRow(t.db, response.body.proposal!.id)).routing;
}

const acmeKey = () => world.agentKey('acme');

/**
 * Runs a change and waits until this process has heard its `count` notifications: on PostgreSQL they
 * arrive after the commit returns, and would drop what the test reads next, so a count of hits is
 * taken only once they are in.
 */
async function heard<T>(count: number, change: () => Promise<T>): Promise<T> {
  const before = attached.cache.stats().notified;
  const result = await change();
  await vi.waitFor(() => expect(attached.cache.stats().notified - before).toBeGreaterThanOrEqual(count), {
    timeout: 20_000,
    interval: 5,
  });
  return result;
}

describe('intake with the read cache', () => {
  it('reads the key, the contracts, the policy and whether the tenant has grants once: the next proposal finds all four kept', async () => {
    expect((await post(acmeKey(), refund())).status).toBe(201);
    const before = attached.cache.stats();
    expect((await post(acmeKey(), refund())).status).toBe(201);
    const after = attached.cache.stats();
    expect(after.hits - before.hits).toBe(4);
    expect(after.misses - before.misses).toBe(0);
  });

  it('covers the next proposal by a standing grant made a moment before, although "no grants here" was kept', async () => {
    const source = await post(acmeKey(), refund());
    const pending = await proposalRow(t.db, source.body.proposal!.id);
    expect(pending.status).toBe('pending_approval');
    await decide(t.db, systems.client, {
      userId: world.userId('alice'),
      proposalId: pending.id,
      request: { decision: 'approve', payloadHash: pending.payloadHash },
    });
    const grant = await createGrant(t.db, {
      tenantId: 'acme',
      userId: world.userId('alice'),
      request: { proposalId: pending.id, minutes: 10, maxCount: 1, sameResource: true, reason: 'cache test' },
    });
    const covered = await proposalRow(t.db, (await post(acmeKey(), refund())).body.proposal!.id);
    expect(covered).toMatchObject({ status: 'approved', grantId: grant.id });
    expect(await routingOf(await post(acmeKey(), refund()))).toMatchObject({ approvals: 1 });
  });

  it('routes the next proposal by a policy version published a moment before, by publishPolicy or by saving the document', async () => {
    expect(await routingOf(await post(acmeKey(), refund()))).toMatchObject({ policyVersion: 2, approvals: 1 });
    const rules = [
      {
        id: 'all-refunds-two',
        description: 'Every refund needs two approvers',
        when: null,
        outcome: 'needs_approval' as const,
        approvals: 2,
        role: 'approver' as const,
      },
    ];
    expect(
      await publishPolicy(
        t.db,
        { tenantId: 'acme', action: 'issue_refund', version: 3, rules },
        { type: 'system', id: 'test' },
      ),
    ).toBe(true);
    expect(await routingOf(await post(acmeKey(), refund()))).toMatchObject({
      policyVersion: 3,
      rule: 'all-refunds-two',
      approvals: 2,
    });

    const document = {
      policies: [
        {
          action: 'issue_refund',
          version: 3,
          rules: [{ ...rules[0], id: 'all-refunds-one', approvals: 1 }],
          expiryHours: 24,
        },
      ],
      note: 'One approver is enough again',
    };
    await savePolicies(t.db, 'acme', { type: 'user', id: world.userId('carol') }, document);
    expect(await routingOf(await post(acmeKey(), refund()))).toMatchObject({
      policyVersion: 4,
      rule: 'all-refunds-one',
      approvals: 1,
    });
  });

  it('refuses a contract version retired a moment before', async () => {
    const carol = world.userId('carol');
    await setContractStatus(t.db, {
      tenantId: 'acme',
      userId: carol,
      action: 'hold_stock',
      version: 2,
      request: { status: 'current' },
    });
    expect((await post(acmeKey(), hold(1))).status).toBe(201);
    await setContractStatus(t.db, {
      tenantId: 'acme',
      userId: carol,
      action: 'hold_stock',
      version: 1,
      request: { status: 'retired' },
    });
    const refused = await post(acmeKey(), hold(1));
    expect([refused.status, refused.body.error?.code]).toEqual([422, 'unsupported_contract_version']);
  });

  it('refuses a key revoked a moment before', async () => {
    const { id, key } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: 'cached-revoked',
      actions: ['issue_refund'],
    });
    expect(await authenticateAgent(t.db, agentRequest(key))).toMatchObject({ keyId: id });
    expect(await authenticateAgent(t.db, agentRequest(key))).toMatchObject({ keyId: id });
    await revokeKey(t.db, 'acme', { type: 'user', id: world.userId('carol') }, id);
    expect((await post(key, refund())).status).toBe(401);
  });

  it('refuses a kept key once its rotation overlap ends, without reading it again', async () => {
    const T0 = new Date();
    const { id, key } = await heard(1, () =>
      createAgentKey(t.db, { tenantId: 'acme', agentName: 'cached-rotated', actions: ['issue_refund'] }),
    );
    await heard(2, () =>
      rotateAgentKey(t.db, 'acme', { type: 'user', id: world.userId('carol') }, id, { overlapMinutes: 1 }, T0),
    );
    const [{ expiresAt }] = (await t.db
      .select({ expiresAt: agentKeys.expiresAt })
      .from(agentKeys)
      .where(eq(agentKeys.id, id))) as [{ expiresAt: Date }];
    const justBefore = new Date(expiresAt.getTime() - 1);
    expect(await authenticateAgent(t.db, agentRequest(key), justBefore)).toMatchObject({ keyId: id });
    const kept = attached.cache.stats();
    expect(await authenticateAgent(t.db, agentRequest(key), justBefore)).toMatchObject({ keyId: id });
    expect(await authenticateAgent(t.db, agentRequest(key), expiresAt)).toBeUndefined();
    const after = attached.cache.stats();
    expect([after.hits - kept.hits, after.misses - kept.misses]).toEqual([2, 0]);
  });

  it("still notes a kept key's last use at most once a minute", async () => {
    const { id, key } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: 'cached-last-used',
      actions: ['issue_refund'],
    });
    const lastUsed = async () =>
      (await t.db.select({ at: agentKeys.lastUsedAt }).from(agentKeys).where(eq(agentKeys.id, id)))[0]?.at?.getTime();
    const T0 = new Date();
    await authenticateAgent(t.db, agentRequest(key), T0);
    expect(await lastUsed()).toBe(T0.getTime());
    await authenticateAgent(t.db, agentRequest(key), new Date(T0.getTime() + 59_000));
    expect(await lastUsed()).toBe(T0.getTime());
    const later = new Date(T0.getTime() + 60_000);
    await authenticateAgent(t.db, agentRequest(key), later);
    expect(await lastUsed()).toBe(later.getTime());
  });
});
