import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { agentKeys, auditEvents } from '@/db/schema';
import { authenticateAgent } from '@/lib/agents/authenticate';
import { chainAllPending } from '@/lib/events/chainer';
import { readJsonRequest } from '@/lib/http/body';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { agentRequest, seededWorld } from '@/test/world';
import { agentKeyCreateRequest, agentKeyRotateRequest } from './agent-key-requests';
import { issueAgentKey, listTenantAgentKeys, revokeKey, rotateAgentKey } from './agent-keys';

const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);

const carol = () => ({ type: 'user' as const, id: seeded.world.userId('carol') });
const T0 = new Date('2030-01-01T10:00:00Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

let requests = 0;
const hold = () => ({
  requestId: `req_keys_${++requests}`,
  action: 'hold_stock',
  contractVersion: 1,
  args: { sku: 'filter-blue', quantity: 1 },
});

/** The key as an agent would present it, at `now`: its principal, or undefined (the API's 401). */
const authenticate = (key: string, now = T0) => authenticateAgent(t.db, agentRequest(key), now);

async function issue(name: string, now = T0) {
  const created = await issueAgentKey(
    t.db,
    'acme',
    carol(),
    { name, actions: ['hold_stock'], grants: { warehouses: ['north'] } },
    now,
  );
  if (!created) throw new Error('acme exists');
  return created;
}

async function auditOf(keyId: string) {
  await chainAllPending(t.db);
  const rows = await t.db.select().from(auditEvents).where(eq(auditEvents.tenantId, 'acme'));
  return rows
    .filter((row) => row.data.key === keyId)
    .map((row) => ({ type: row.type, actor: `${row.actorType}:${row.actorId}`, data: row.data }));
}

/** A body as the route reads it: the one JSON reader and the route's schema. */
function parse(spec: typeof agentKeyCreateRequest | typeof agentKeyRotateRequest, body: unknown) {
  return readJsonRequest(
    new Request('http://countersign.test/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    spec as typeof agentKeyCreateRequest,
  );
}

describe('agent keys from the dashboard', () => {
  it('issues a key that authenticates and proposes, shown once and stored only as a hash; audited as the admin', async () => {
    const { agentKey, key } = await issue('keys-bot');
    expect(key).toMatch(/^cs_agent_[A-Za-z0-9_-]{43}$/);
    expect(agentKey).toMatchObject({
      agentName: 'keys-bot',
      actions: ['hold_stock'],
      grants: { warehouses: ['north'] },
      state: 'active',
      lastUsedAt: null,
      keyPrefix: key.slice(0, 15),
    });
    expect(JSON.stringify(agentKey)).not.toContain(key.slice(15));

    const principal = await authenticate(key);
    expect(principal).toMatchObject({
      keyId: agentKey.id,
      tenantId: 'acme',
      agentName: 'keys-bot',
      allowedActions: ['hold_stock'],
    });
    const result = await submitAs(t.db, systems.client, principal!, hold(), { now: T0 });
    expect(result).toMatchObject({ created: true, proposal: { status: 'pending_approval', agentKeyId: agentKey.id } });

    const listed = (await listTenantAgentKeys(t.db, 'acme', T0)).find((row) => row.id === agentKey.id);
    expect(listed?.lastUsedAt).toEqual(T0);
    expect(await auditOf(agentKey.id)).toEqual([
      {
        type: 'agent_key.created',
        actor: `user:${carol().id}`,
        data: { key: agentKey.id, agent: 'keys-bot', actions: 'hold_stock' },
      },
    ]);
  });

  it('records last use at most once a minute', async () => {
    const { agentKey, key } = await issue('busy-bot');
    const lastUsed = async () =>
      (await t.db.select({ at: agentKeys.lastUsedAt }).from(agentKeys).where(eq(agentKeys.id, agentKey.id)))[0]?.at;
    await authenticate(key, minutes(1));
    await authenticate(key, new Date(minutes(1).getTime() + 30_000));
    expect(await lastUsed()).toEqual(minutes(1));
    await authenticate(key, minutes(2));
    expect(await lastUsed()).toEqual(minutes(2));
  });

  it('revokes a key: the next request with it is refused (401), and a second revocation is a 409', async () => {
    const { agentKey, key } = await issue('revoked-bot');
    expect(await authenticate(key)).toBeDefined();
    const revoked = await revokeKey(t.db, 'acme', carol(), agentKey.id, minutes(1));
    expect(revoked).toMatchObject({ id: agentKey.id, state: 'revoked', revokedAt: minutes(1) });
    expect(await authenticate(key, minutes(1))).toBeUndefined();
    await expectApiError(revokeKey(t.db, 'acme', carol(), agentKey.id, minutes(2)), {
      status: 409,
      code: 'already_revoked',
    });
    expect((await auditOf(agentKey.id)).map((row) => row.type)).toEqual(['agent_key.created', 'agent_key.revoked']);
  });

  it('rotates a key: both work during the overlap, the old one is refused from its end on, and the new one keeps name, actions and grants', async () => {
    const { agentKey: old, key: oldKey } = await issue('rotating-bot');
    const rotated = await rotateAgentKey(t.db, 'acme', carol(), old.id, { overlapMinutes: 15 }, minutes(10));
    expect(rotated).toBeDefined();
    const { agentKey: fresh, key: newKey } = rotated!;
    expect(newKey).not.toBe(oldKey);
    expect(fresh).toMatchObject({
      agentName: 'rotating-bot',
      actions: ['hold_stock'],
      grants: { warehouses: ['north'] },
      state: 'active',
    });

    for (const at of [minutes(10), minutes(24)]) {
      const before = await authenticate(oldKey, at);
      expect(before?.keyId).toBe(old.id);
      expect((await submitAs(t.db, systems.client, before!, hold(), { now: at })).created).toBe(true);
      expect((await authenticate(newKey, at))?.keyId).toBe(fresh.id);
    }
    expect(await authenticate(oldKey, minutes(25))).toBeUndefined();
    expect(await authenticate(oldKey, minutes(60))).toBeUndefined();
    const after = await authenticate(newKey, minutes(60));
    expect((await submitAs(t.db, systems.client, after!, hold(), { now: minutes(60) })).created).toBe(true);

    const states = new Map((await listTenantAgentKeys(t.db, 'acme', minutes(20))).map((row) => [row.id, row]));
    expect(states.get(old.id)).toMatchObject({ state: 'expiring', expiresAt: minutes(25), replacedById: fresh.id });
    expect((await listTenantAgentKeys(t.db, 'acme', minutes(25))).find((row) => row.id === old.id)?.state).toBe(
      'expired',
    );
    expect(await auditOf(old.id)).toEqual([
      {
        type: 'agent_key.created',
        actor: `user:${carol().id}`,
        data: { key: old.id, agent: 'rotating-bot', actions: 'hold_stock' },
      },
      {
        type: 'agent_key.rotated',
        actor: `user:${carol().id}`,
        data: {
          key: old.id,
          replacedBy: fresh.id,
          agent: 'rotating-bot',
          overlapMinutes: 15,
          expiresAt: minutes(25).toISOString(),
        },
      },
    ]);
    await expectApiError(rotateAgentKey(t.db, 'acme', carol(), old.id, { overlapMinutes: 0 }, minutes(30)), {
      status: 409,
      code: 'already_rotated',
    });
  });

  it('rotates with no overlap: the old key is refused at once', async () => {
    const { agentKey: old, key: oldKey } = await issue('instant-bot');
    const rotated = await rotateAgentKey(t.db, 'acme', carol(), old.id, { overlapMinutes: 0 }, minutes(5));
    expect(await authenticate(oldKey, minutes(5))).toBeUndefined();
    expect(await authenticate(rotated!.key, minutes(5))).toBeDefined();
  });

  it('refuses to rotate a revoked key (409), and revoking a key in its overlap ends the overlap', async () => {
    const { agentKey: old, key: oldKey } = await issue('overlap-bot');
    await rotateAgentKey(t.db, 'acme', carol(), old.id, { overlapMinutes: 60 }, minutes(1));
    expect(await authenticate(oldKey, minutes(2))).toBeDefined();
    await revokeKey(t.db, 'acme', carol(), old.id, minutes(3));
    expect(await authenticate(oldKey, minutes(3))).toBeUndefined();
    await expectApiError(rotateAgentKey(t.db, 'acme', carol(), old.id, { overlapMinutes: 0 }, minutes(4)), {
      status: 409,
      code: 'already_revoked',
    });
  });

  it("answers another tenant's key exactly like an unknown one, and changes nothing", async () => {
    const globexKeyId = seeded.globex.keyId;
    expect(await revokeKey(t.db, 'acme', carol(), globexKeyId)).toBeUndefined();
    expect(await rotateAgentKey(t.db, 'acme', carol(), globexKeyId, { overlapMinutes: 0 })).toBeUndefined();
    expect(await revokeKey(t.db, 'acme', carol(), 'key_unknown')).toBeUndefined();
    expect((await listTenantAgentKeys(t.db, 'acme')).map((row) => row.id)).not.toContain(globexKeyId);
    expect(await authenticate(seeded.world.agentKey('globex'), new Date())).toMatchObject({ keyId: globexKeyId });
    await chainAllPending(t.db);
    const globexEvents = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, 'globex')));
    expect(globexEvents.filter((row) => row.data.key === globexKeyId).map((row) => row.type)).toEqual([
      'agent_key.created',
    ]);
  });
});

describe('the create and rotate bodies', () => {
  it('accepts a key without grants, and grants the chosen actions read', async () => {
    await expect(parse(agentKeyCreateRequest, { name: 'refund-bot', actions: ['issue_refund'] })).resolves.toEqual({
      name: 'refund-bot',
      actions: ['issue_refund'],
      grants: {},
    });
    await expect(
      parse(agentKeyCreateRequest, {
        name: 'a.b_c-1',
        actions: ['hold_stock', 'issue_refund'],
        grants: { warehouses: ['north', 'south-2'] },
      }),
    ).resolves.toMatchObject({ grants: { warehouses: ['north', 'south-2'] } });
  });

  it.each([
    ['an action that is no name', { name: 'bot', actions: ['Delete Everything'] }, 'actions.0'],
    ['no actions', { name: 'bot', actions: [] }, 'actions'],
    ['a repeated action', { name: 'bot', actions: ['hold_stock', 'hold_stock'] }, 'actions'],
    ['no name', { actions: ['hold_stock'] }, 'name'],
    ['a name with a space', { name: 'bad name', actions: ['hold_stock'] }, 'name'],
    ['a name starting with a dot', { name: '.bot', actions: ['hold_stock'] }, 'name'],
    ['a name of 65 characters', { name: 'b'.repeat(65), actions: ['hold_stock'] }, 'name'],
    [
      'a grant no chosen action reads',
      { name: 'bot', actions: ['hold_stock'], grants: { regions: ['eu'] } },
      'grants.regions',
    ],
    [
      'a grant only an unchosen action reads',
      { name: 'bot', actions: ['issue_refund'], grants: { warehouses: ['north'] } },
      'grants.warehouses',
    ],
    [
      'a grant value with a space',
      { name: 'bot', actions: ['hold_stock'], grants: { warehouses: ['north pole'] } },
      'grants.warehouses.0',
    ],
    ['an empty grant', { name: 'bot', actions: ['hold_stock'], grants: { warehouses: [] } }, 'grants.warehouses'],
    [
      'a grant that is not a list',
      { name: 'bot', actions: ['hold_stock'], grants: { warehouses: 'north' } },
      'grants.warehouses',
    ],
    ['an unknown field', { name: 'bot', actions: ['hold_stock'], tenantId: 'globex' }, 'tenantId'],
  ])('refuses %s with 422 invalid_agent_key naming the field', async (_case, body, field) => {
    const error = await expectApiError(parse(agentKeyCreateRequest, body), {
      status: 422,
      kind: 'schema',
      code: 'invalid_agent_key',
    });
    expect((error.details.issues as { field: string }[]).map((issue) => issue.field)).toContain(field);
  });

  it.each([
    ['an action the tenant does not have', { actions: ['delete_everything'], grants: {} }, 'actions.0'],
    [
      'a grant of a shipped action beside an undeclared one',
      { actions: ['hold_stock', 'nope'], grants: { regions: ['eu'] } },
      'grants.regions',
    ],
  ])('refuses %s when the key is issued, naming the field, and issues nothing', async (_case, input, field) => {
    const before = await listTenantAgentKeys(t.db, 'acme');
    const error = await expectApiError(issueAgentKey(t.db, 'acme', carol(), { name: 'bot', ...input }), {
      status: 422,
      kind: 'schema',
      code: 'invalid_agent_key',
    });
    expect((error.details.issues as { field: string }[]).map((issue) => issue.field)).toContain(field);
    expect(await listTenantAgentKeys(t.db, 'acme')).toEqual(before);
  });

  it.each([
    [{}],
    [{ overlapMinutes: -1 }],
    [{ overlapMinutes: 10081 }],
    [{ overlapMinutes: 1.5 }],
    [{ overlapMinutes: '15' }],
    [{ overlapMinutes: 15, keep: true }],
  ])('refuses the rotation %j with 422 invalid_rotation', async (body) => {
    await expectApiError(parse(agentKeyRotateRequest, body), { status: 422, kind: 'schema', code: 'invalid_rotation' });
  });

  it('accepts overlaps from 0 to a week', async () => {
    for (const overlapMinutes of [0, 15, 60, 1440, 10080])
      await expect(parse(agentKeyRotateRequest, { overlapMinutes })).resolves.toEqual({ overlapMinutes });
  });
});
