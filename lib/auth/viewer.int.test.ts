/**
 * One viewer for pages and API: a person in two tenants sees, in the queue API, the tenant the
 * dashboard shows them (the `cs_tenant` cookie among their memberships, else their first), and a
 * cookie naming a tenant they do not belong to grants nothing. next-auth and Next's request cookies
 * do not load outside Next, so `auth()` and `cookies()` answer what this file names; the database,
 * the route and the page context below them are real.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as queue } from '@/app/api/v1/queue/route';
import { memberships } from '@/db/schema';
import { dashboardContext } from '@/lib/dashboard/context';
import { setupTestDatabase } from '@/test/db';
import { fixtureRows, insertFixtures } from '@/test/fixtures/queue';
import { seededWorld } from '@/test/world';

const request = vi.hoisted(() => ({
  userId: undefined as string | undefined,
  tenantCookie: undefined as string | undefined,
}));
vi.mock('@/lib/auth', () => ({ auth: async () => (request.userId ? { operatorId: request.userId } : null) }));
vi.mock('next/headers', () => ({
  cookies: async () => ({
    get: (name: string) =>
      name === 'cs_tenant' && request.tenantCookie !== undefined ? { name, value: request.tenantCookie } : undefined,
  }),
}));

const t = setupTestDatabase();
const seeded = seededWorld(t);
const globalForDb = globalThis as unknown as { countersignDb?: Promise<unknown> };

const ACME = fixtureRows(3, 'va');
const GLOBEX = fixtureRows(2, 'vg');
const OTHER = fixtureRows(1, 'vo');

beforeAll(async () => {
  globalForDb.countersignDb = Promise.resolve(t.handle);
  await insertFixtures(t.db, 'acme', ACME);
  await insertFixtures(t.db, 'globex', GLOBEX);
  await insertFixtures(t.db, 'initech', OTHER);
  // Alice, an approver at acme, is an approver at globex too.
  await t.db.insert(memberships).values({ tenantId: 'globex', userId: seeded.world.userId('alice'), role: 'approver' });
});
afterAll(() => {
  globalForDb.countersignDb = undefined;
});

async function queueTenant(query = ''): Promise<{ status: number; ids: string[] }> {
  const response = await queue(new Request(`http://countersign.test/api/v1/queue?group=all${query}`));
  const body = (await response.json()) as { items?: { id: string }[] };
  return { status: response.status, ids: (body.items ?? []).map((item) => item.id).sort() };
}
const idsOf = (rows: { id: string }[]) => rows.map((row) => row.id).sort();
const TENANT_ROWS: Record<string, string[]> = { acme: idsOf(ACME), globex: idsOf(GLOBEX) };

describe('the viewer of a person in two tenants', () => {
  it.each([
    ['no tenant cookie: their first tenant', undefined, 'acme'],
    ['the cookie names acme', 'acme', 'acme'],
    ['the cookie names globex', 'globex', 'globex'],
    ['the cookie names a tenant they do not belong to: their first, never that one', 'initech', 'acme'],
  ])('%s: the queue API shows the tenant the pages show', async (_label, cookie, expected) => {
    request.userId = seeded.world.userId('alice');
    request.tenantCookie = cookie;
    const page = await dashboardContext('/');
    expect(page.tenantId).toBe(expected);
    const answered = await queueTenant();
    expect(answered).toEqual({ status: 200, ids: TENANT_ROWS[expected] });
  });

  it('an explicit ?tenant= chooses among their memberships only (another tenant is the same 404 as an unknown one)', async () => {
    request.userId = seeded.world.userId('alice');
    request.tenantCookie = 'acme';
    expect(await queueTenant('&tenant=globex')).toEqual({ status: 200, ids: TENANT_ROWS.globex });
    expect((await queueTenant('&tenant=initech')).status).toBe(404);
    expect((await queueTenant('&tenant=nope')).status).toBe(404);
  });

  it('without a session, or with an agent key beside it, the queue is a 401 and shows nothing', async () => {
    request.userId = undefined;
    request.tenantCookie = 'globex';
    expect(await queueTenant()).toEqual({ status: 401, ids: [] });
    request.userId = seeded.world.userId('alice');
    const withKey = await queue(
      new Request('http://countersign.test/api/v1/queue', {
        headers: { authorization: `Bearer ${seeded.world.agentKey('acme')}` },
      }),
    );
    expect(withKey.status).toBe(401);
  });
});
