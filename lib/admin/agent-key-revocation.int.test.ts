/**
 * Revoking an agent key says what of the agent still works, until when, and can stop the agent
 * (every key of it) in one go (docs/operators.md "Agent keys"). Through the admin routes as Next
 * calls them (the session is the one this file names; the database, routes and checks are real).
 */
import { and, eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { POST as revokeRoute } from '@/app/api/v1/admin/agent-keys/[id]/revoke/route';
import { POST as rotateRoute } from '@/app/api/v1/admin/agent-keys/[id]/rotate/route';
import { POST as issueRoute } from '@/app/api/v1/admin/agent-keys/route';
import { agentKeys, auditEvents } from '@/db/schema';
import { authenticateAgent } from '@/lib/agents/authenticate';
import { chainAllPending } from '@/lib/events/chainer';
import { rowCounts } from '@/test/queries';
import { ROUTE_ORIGIN, setupRouteWorld } from '@/test/route-world';
import { agentRequest } from '@/test/world';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

const { t, seeded, as } = await setupRouteWorld();

type KeyJson = {
  id: string;
  agentName: string;
  keyPrefix: string;
  state: string;
  expiresAt: string | null;
  revokedAt: string | null;
};
type Answer = {
  status: number;
  body: { agentKey?: KeyJson; key?: string; revoked?: KeyJson[]; stillWorking?: KeyJson[]; error?: { code: string } };
};
type Route = (request: Request, context: { params: Promise<{ id: string }> }) => Promise<Response>;

async function post(route: Route, path: string, id: string, body?: unknown): Promise<Answer> {
  const headers = {
    host: 'countersign.test',
    origin: ROUTE_ORIGIN,
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  const response = await route(
    new Request(`${ROUTE_ORIGIN}${path}`, {
      method: 'POST',
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
    { params: Promise.resolve({ id }) },
  );
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

let agents = 0;
/** A key of a new agent, and its rotation with a one-hour overlap: [old, newest], each with its secret. */
async function rotated(): Promise<{
  name: string;
  old: { id: string; key: string };
  newest: { id: string; key: string };
}> {
  as('carol');
  const name = `rotated-bot-${++agents}`;
  const issued = await post(issueRoute as unknown as Route, '/api/v1/admin/agent-keys', '', {
    name,
    actions: ['hold_stock'],
    grants: { warehouses: ['north'] },
  });
  const old = { id: issued.body.agentKey!.id, key: issued.body.key! };
  const next = await post(rotateRoute, `/api/v1/admin/agent-keys/${old.id}/rotate`, old.id, { overlapMinutes: 60 });
  expect(next.status).toBe(201);
  return { name, old, newest: { id: next.body.agentKey!.id, key: next.body.key! } };
}

const revoke = (id: string, body?: unknown) => post(revokeRoute, `/api/v1/admin/agent-keys/${id}/revoke`, id, body);
const works = async (key: string) => (await authenticateAgent(t.db, agentRequest(key))) !== undefined;

describe('revoking one key of a rotated agent', () => {
  it('answers what still works and until when: the rotated old key, to the end of its overlap', async () => {
    const { old, newest } = await rotated();
    const answer = await revoke(newest.id);
    expect(answer.status).toBe(200);
    expect(answer.body.agentKey).toMatchObject({ id: newest.id, state: 'revoked' });
    expect(answer.body.revoked?.map((key) => key.id)).toEqual([newest.id]);
    const [stored] = await t.db
      .select({ expiresAt: agentKeys.expiresAt })
      .from(agentKeys)
      .where(eq(agentKeys.id, old.id));
    expect(answer.body.stillWorking).toEqual([
      expect.objectContaining({ id: old.id, state: 'expiring', expiresAt: stored!.expiresAt!.toISOString() }),
    ]);
    // The answer is the truth: the old key does still work.
    expect([await works(newest.key), await works(old.key)]).toEqual([false, true]);
  });

  it('answers the newest key as still working, with no end, when the old one is revoked in its overlap', async () => {
    const { old, newest } = await rotated();
    const answer = await revoke(old.id, {});
    expect(answer.body.stillWorking).toEqual([
      expect.objectContaining({ id: newest.id, state: 'active', expiresAt: null }),
    ]);
  });
});

describe('stopping the agent: {"scope": "agent"}', () => {
  it('revokes every key of the agent that still works, each audited, and nothing of another agent', async () => {
    const other = await rotated();
    const { old, newest } = await rotated();
    const answer = await revoke(newest.id, { scope: 'agent' });
    expect(answer.status).toBe(200);
    expect(answer.body.revoked?.map((key) => key.id).sort()).toEqual([old.id, newest.id].sort());
    expect(answer.body.stillWorking).toEqual([]);
    expect([await works(newest.key), await works(old.key)]).toEqual([false, false]);
    expect([await works(other.newest.key), await works(other.old.key)]).toEqual([true, true]);
    await chainAllPending(t.db);
    const events = await t.db
      .select({ data: auditEvents.data })
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, 'acme'), eq(auditEvents.type, 'agent_key.revoked')));
    expect(
      events
        .map((event) => event.data.key)
        .filter((key) => key === old.id || key === newest.id)
        .sort(),
    ).toEqual([old.id, newest.id].sort());
  });

  it('stops what is left after the newest key was revoked alone', async () => {
    const { old, newest } = await rotated();
    await revoke(newest.id);
    const answer = await revoke(newest.id, { scope: 'agent' });
    expect(answer).toMatchObject({
      status: 200,
      body: { revoked: [expect.objectContaining({ id: old.id })], stillWorking: [] },
    });
    expect(await works(old.key)).toBe(false);
  });

  it('leaves no key of the agent working when it races a rotation', async () => {
    for (let round = 0; round < 5; round++) {
      const { name, newest } = await rotated();
      const [, rotation] = await Promise.all([
        revoke(newest.id, { scope: 'agent' }),
        post(rotateRoute, `/api/v1/admin/agent-keys/${newest.id}/rotate`, newest.id, { overlapMinutes: 60 }),
      ]);
      const live = await t.db
        .select()
        .from(agentKeys)
        .where(and(eq(agentKeys.agentName, name), eq(agentKeys.tenantId, 'acme')));
      if (rotation.status === 201) expect(await works(rotation.body.key!)).toBe(false);
      expect(
        live.filter((key) => key.revokedAt === null && (key.expiresAt === null || key.expiresAt > new Date())),
      ).toEqual([]);
    }
  });
});

describe('a revocation that cannot be done changes nothing', () => {
  type Ids = { old: string; newest: string };
  const nothing = async () => undefined;
  it.each<[string, (ids: Ids) => Promise<unknown>, (ids: Ids) => Promise<Answer>, number, string]>([
    ['an unknown scope', nothing, ({ newest }) => revoke(newest, { scope: 'everything' }), 422, 'invalid_revocation'],
    [
      'another field',
      nothing,
      ({ newest }) => revoke(newest, { scope: 'key', tenantId: 'globex' }),
      422,
      'invalid_revocation',
    ],
    [
      'a revoked key, alone again',
      ({ newest }) => revoke(newest),
      ({ newest }) => revoke(newest),
      409,
      'already_revoked',
    ],
    [
      'an agent already stopped',
      ({ newest }) => revoke(newest, { scope: 'agent' }),
      ({ newest }) => revoke(newest, { scope: 'agent' }),
      409,
      'agent_already_stopped',
    ],
    [
      'an approver, stopping the agent',
      nothing,
      ({ newest }) => (as('alice'), revoke(newest, { scope: 'agent' })),
      403,
      'forbidden',
    ],
    ['an unknown key, stopping its agent', nothing, () => revoke('key_unknown', { scope: 'agent' }), 404, 'not_found'],
  ])('%s', async (_label, setup, act, status, code) => {
    const { old, newest } = await rotated();
    await setup({ old: old.id, newest: newest.id });
    const keys = () =>
      t.db
        .select({ id: agentKeys.id, revokedAt: agentKeys.revokedAt, expiresAt: agentKeys.expiresAt })
        .from(agentKeys)
        .orderBy(agentKeys.id);
    const [counts, before] = [await rowCounts(t.db), await keys()];
    expect(await act({ old: old.id, newest: newest.id })).toMatchObject({ status, body: { error: { code } } });
    expect(await rowCounts(t.db)).toEqual(counts);
    expect(await keys()).toEqual(before);
  });

  it('answers another tenant’s key as an unknown one (404), for either scope, and it keeps working', async () => {
    const [globex] = await t.db.select({ id: agentKeys.id }).from(agentKeys).where(eq(agentKeys.tenantId, 'globex'));
    as('carol');
    for (const body of [undefined, { scope: 'agent' }])
      expect(await revoke(globex!.id, body)).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(await works(seeded.world.agentKey('globex'))).toBe(true);
  });
});
