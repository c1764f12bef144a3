/**
 * The oversight routes as Next calls them: the session's person and tenant (next-auth and Next's
 * cookies do not load outside Next, so `auth()` and `cookies()` answer what this file names); the
 * database, the routes and the checks below them are real.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { PUT as putSettings } from '@/app/api/v1/admin/oversight/settings/route';
import { GET as oversight } from '@/app/api/v1/oversight/route';
import { tenants } from '@/db/schema';
import { createUser } from '@/lib/admin/accounts';
import { routeSession } from '@/test/route-session';
import { ROUTE_ORIGIN, setupRouteWorld } from '@/test/route-world';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

const { t, seeded, as } = await setupRouteWorld();
const ORIGIN = ROUTE_ORIGIN;
let outsiderId = '';

beforeAll(async () => {
  outsiderId = (await createUser(t.db, { email: 'outsider@example.test', name: 'Outsider' })).id;
});

const get = async (query = '') => {
  const response = await oversight(new Request(`${ORIGIN}/api/v1/oversight${query}`));
  return {
    status: response.status,
    body: (await response.json()) as { days?: number; error?: { code: string }; approvers?: unknown[] },
  };
};
describe('GET /api/v1/oversight', () => {
  it('answers viewers and admins of the tenant, 7 days by default', async () => {
    as('dave');
    expect(await get()).toMatchObject({ status: 200, body: { days: 7 } });
    as('carol');
    expect(await get('?days=90')).toMatchObject({ status: 200, body: { days: 90 } });
  });

  it.each([['?days=0'], ['?days=91'], ['?days=1e1']])('refuses %s with 422 invalid_days', async (query) => {
    as('dave');
    expect(await get(query)).toMatchObject({ status: 422, body: { error: { code: 'invalid_days' } } });
  });

  it('refuses no session (401), an agent key (401) and a person in no tenant (403)', async () => {
    as(undefined);
    expect((await get()).status).toBe(401);
    as('dave');
    const withKey = await oversight(
      new Request(`${ORIGIN}/api/v1/oversight`, {
        headers: { authorization: `Bearer ${seeded.world.agentKey('acme')}` },
      }),
    );
    expect(withKey.status).toBe(401);
    routeSession.userId = outsiderId;
    expect(await get()).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
  });
});

describe('PUT /api/v1/admin/oversight/settings', () => {
  const put = (body: unknown) =>
    putSettings(
      new Request(`${ORIGIN}/api/v1/admin/oversight/settings`, {
        method: 'PUT',
        headers: { host: 'countersign.test', origin: ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  const stored = async () =>
    (await t.db.select({ min: tenants.oversightMinDecisions }).from(tenants).where(eq(tenants.id, 'acme')))[0]?.min;

  it('lets an admin change them (0 turns the alarm off) and refuses an approver and a bad value, changing nothing', async () => {
    as('alice');
    expect((await put({ minDecisions: 0, approvalRatePercent: 98, medianDwellSeconds: 5 })).status).toBe(403);
    as('carol');
    expect((await put({ minDecisions: 20, approvalRatePercent: 101, medianDwellSeconds: 5 })).status).toBe(422);
    expect(await stored()).toBe(20);
    const done = await put({ minDecisions: 0, approvalRatePercent: 98, medianDwellSeconds: 5 });
    expect([done.status, await done.json()]).toEqual([
      200,
      { settings: { minDecisions: 0, approvalRatePercent: 98, medianDwellSeconds: 5 } },
    ]);
    expect(await stored()).toBe(0);
  });
});
