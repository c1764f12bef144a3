/**
 * A person may belong to several tenants; one tenant's admin acts on that person only as far as their
 * tenant reaches (docs/passkeys.md "Recovery", docs/operators.md). Every admin action on a member,
 * through the routes as Next calls them (the session is the one this file names; the database,
 * routes and checks are real), against everything of the person another tenant relies on.
 */
import { and, asc, eq, ne } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GET as memberPasskeys } from '@/app/api/v1/admin/members/[userId]/passkeys/route';
import { PATCH as changeMemberRole, DELETE as removeMember } from '@/app/api/v1/admin/members/[userId]/route';
import { DELETE as resetPasskey } from '@/app/api/v1/admin/passkeys/[id]/route';
import { memberships, passkeys, sessions, tenants, users } from '@/db/schema';
import { createUser, grantRole } from '@/lib/admin/accounts';
import { startSession } from '@/lib/auth/sessions';
import { newId } from '@/lib/ids';
import { rowCounts } from '@/test/queries';
import { routeSession } from '@/test/route-session';
import { ROUTE_ORIGIN, setupRouteWorld } from '@/test/route-world';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

const { t, seeded, as } = await setupRouteWorld();
/** Alice: an approver of acme and of globex. */
let alice = '';
/** Gina: globex's admin. */
let gina = '';

beforeAll(async () => {
  alice = seeded.world.userId('alice');
  await grantRole(t.db, { tenantId: 'globex', email: 'alice@acme.test', role: 'approver' });
  gina = (await createUser(t.db, { email: 'gina@globex.test', name: 'Gina', password: 'gina chose a long one' })).id;
  await grantRole(t.db, { tenantId: 'globex', email: 'gina@globex.test', role: 'admin' });
  await startSession(t.db, alice, 'credentials');
});

/** Alice is back to an approver of acme with `count` passkeys; who requires passkeys is set per test. */
async function reset(count: number, requiring: { acme: boolean; globex: boolean }) {
  await grantRole(t.db, { tenantId: 'acme', email: 'alice@acme.test', role: 'approver' });
  await t.db.delete(passkeys).where(eq(passkeys.userId, alice));
  for (let i = 0; i < count; i++) {
    const id = newId('psk');
    await t.db
      .insert(passkeys)
      .values({ id, userId: alice, credentialId: `cred-${id}`, publicKey: 'cose', name: `Key ${i + 1}` });
  }
  await t.db.update(tenants).set({ requirePasskeys: requiring.acme }).where(eq(tenants.id, 'acme'));
  await t.db.update(tenants).set({ requirePasskeys: requiring.globex }).where(eq(tenants.id, 'globex'));
}

const firstPasskey = async () =>
  (
    await t.db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, alice)).orderBy(asc(passkeys.name))
  )[0]!.id;

/** Everything of Alice's that is not acme's: her account, sessions, passkeys and other memberships. */
async function beyondAcme() {
  const [account] = await t.db
    .select({
      name: users.name,
      email: users.email,
      passwordHash: users.passwordHash,
      verifiedAt: users.emailVerifiedAt,
    })
    .from(users)
    .where(eq(users.id, alice));
  return {
    account,
    sessions: await t.db
      .select({ id: sessions.id, endedAt: sessions.endedAt, expiresAt: sessions.expiresAt })
      .from(sessions)
      .where(eq(sessions.userId, alice))
      .orderBy(asc(sessions.id)),
    passkeys: await t.db
      .select({ id: passkeys.id, name: passkeys.name })
      .from(passkeys)
      .where(eq(passkeys.userId, alice))
      .orderBy(asc(passkeys.id)),
    elsewhere: await t.db
      .select({ tenantId: memberships.tenantId, role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.userId, alice), ne(memberships.tenantId, 'acme'))),
  };
}

type Route = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;

async function call(
  route: Route,
  method: string,
  path: string,
  params: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: { error?: { code?: string } } & Record<string, unknown> }> {
  const headers = {
    host: 'countersign.test',
    origin: ROUTE_ORIGIN,
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  const response = await route(
    new Request(`${ROUTE_ORIGIN}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
    { params: Promise.resolve(params) },
  );
  return { status: response.status, body: (await response.json()) as { error?: { code?: string } } };
}

type AdminAction = [
  label: string,
  act: () => Promise<{ status: number; body: { error?: { code?: string } } }>,
  status: number,
];

const ACTIONS: AdminAction[] = [
  [
    'resets her only passkey',
    async () => call(resetPasskey as Route, 'DELETE', `/api/v1/admin/passkeys/x`, { id: await firstPasskey() }),
    409,
  ],
  [
    'lists her passkeys',
    async () => call(memberPasskeys as Route, 'GET', `/api/v1/admin/members/${alice}/passkeys`, { userId: alice }),
    200,
  ],
  [
    'changes her role',
    async () =>
      call(changeMemberRole as Route, 'PATCH', `/api/v1/admin/members/${alice}`, { userId: alice }, { role: 'viewer' }),
    200,
  ],
  [
    'removes her from the tenant',
    async () => call(removeMember as Route, 'DELETE', `/api/v1/admin/members/${alice}`, { userId: alice }),
    200,
  ],
];

describe('what acme’s admin does to Alice, who is also in globex (which requires passkeys), never reaches beyond acme', () => {
  beforeEach(async () => {
    await reset(1, { acme: false, globex: true });
    as('carol');
  });

  it.each(ACTIONS)(
    '%s: her account, sessions, passkeys and globex membership stay as they were',
    async (_label, act, status) => {
      const before = await beyondAcme();
      const answer = await act();
      expect(answer.status).toBe(status);
      expect(await beyondAcme()).toEqual(before);
    },
  );
});

describe('an admin’s passkey reset, where another tenant of the person requires passkeys', () => {
  const resetAs = async (admin: 'carol' | 'gina') => {
    if (admin === 'carol') as('carol');
    else routeSession.userId = gina;
    return call(resetPasskey as Route, 'DELETE', '/api/v1/admin/passkeys/x', { id: await firstPasskey() });
  };

  it.each<[string, number, { acme: boolean; globex: boolean }, 'carol' | 'gina', number]>([
    ['her last one, globex requiring, by acme’s admin', 1, { acme: false, globex: true }, 'carol', 409],
    ['one of two, globex requiring, by acme’s admin', 2, { acme: false, globex: true }, 'carol', 409],
    ['one of two, both requiring, by acme’s admin', 2, { acme: true, globex: true }, 'carol', 409],
    ['her last one, both requiring, by globex’s admin', 1, { acme: true, globex: true }, 'gina', 409],
  ])(
    'refuses %s with 409 passkey_required_elsewhere and changes nothing',
    async (_label, count, requiring, admin, status) => {
      await reset(count, requiring);
      const before = await rowCounts(t.db);
      const stored = await beyondAcme();
      const answer = await resetAs(admin);
      expect(answer).toMatchObject({ status, body: { error: { code: 'passkey_required_elsewhere' } } });
      // Which other tenant it is stays that tenant's business.
      expect(JSON.stringify(answer.body)).not.toMatch(admin === 'carol' ? /globex/ : /acme/);
      expect(await rowCounts(t.db)).toEqual(before);
      expect(await beyondAcme()).toEqual(stored);
    },
  );

  it.each<[string, { acme: boolean; globex: boolean }, 'carol' | 'gina']>([
    ['acme’s admin, when no other tenant requires passkeys', { acme: true, globex: false }, 'carol'],
    ['globex’s admin, where only globex requires them', { acme: false, globex: true }, 'gina'],
  ])('lets %s reset it', async (_label, requiring, admin) => {
    await reset(1, requiring);
    expect((await resetAs(admin)).status).toBe(200);
    expect((await beyondAcme()).passkeys).toEqual([]);
  });
});
