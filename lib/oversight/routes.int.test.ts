/**
 * The oversight routes as Next calls them: the session's person and tenant (next-auth and Next's
 * cookies do not load outside Next, so `auth()` and `cookies()` answer what this file names); the
 * database, the routes and the checks below them are real.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as oversight } from '@/app/api/v1/oversight/route';
import { POST as view } from '@/app/api/v1/proposals/[id]/views/route';
import { PUT as putSettings } from '@/app/api/v1/admin/oversight/settings/route';
import { proposalViews, tenants } from '@/db/schema';
import { createUser } from '@/lib/admin/accounts';
import { submitAs } from '@/test/intake';
import { routeSession } from '@/test/route-session';
import { setupRouteWorld, ROUTE_ORIGIN } from '@/test/route-world';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

const { t, systems: systemsOfRecord, seeded, as } = await setupRouteWorld();
const ORIGIN = ROUTE_ORIGIN;
let proposalId = '';
let outsiderId = '';

beforeAll(async () => {
  const body = { requestId: 'req_oversight_routes', action: 'hold_stock', contractVersion: 1, args: { sku: 'filter-blue', quantity: 1 } };
  proposalId = (await submitAs(t.db, systemsOfRecord.client, seeded.acme, body)).proposal.id;
  outsiderId = (await createUser(t.db, { email: 'outsider@example.test', name: 'Outsider' })).id;
});

const get = async (query = '') => {
  const response = await oversight(new Request(`${ORIGIN}/api/v1/oversight${query}`));
  return { status: response.status, body: (await response.json()) as { days?: number; error?: { code: string }; approvers?: unknown[] } };
};
const post = async (id: string, body: unknown) => {
  const request = new Request(`${ORIGIN}/api/v1/proposals/${id}/views`, { method: 'POST', headers: { host: 'countersign.test', origin: ORIGIN, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const response = await view(request, { params: Promise.resolve({ id }) });
  return { status: response.status, body: (await response.json()) as { recorded?: boolean; error?: { code: string } } };
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
    const withKey = await oversight(new Request(`${ORIGIN}/api/v1/oversight`, { headers: { authorization: `Bearer ${seeded.world.agentKey('acme')}` } }));
    expect(withKey.status).toBe(401);
    routeSession.userId = outsiderId;
    expect(await get()).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
  });
});

describe('POST /api/v1/proposals/:id/views', () => {
  const rows = () => t.db.select().from(proposalViews).where(eq(proposalViews.proposalId, proposalId));

  it('records the first look once; calling again changes nothing', async () => {
    as('alice');
    expect(await post(proposalId, { channel: 'queue' })).toEqual({ status: 200, body: { recorded: true } });
    expect(await post(proposalId, { channel: 'page' })).toEqual({ status: 200, body: { recorded: false } });
    expect((await rows()).map((row) => [row.userId, row.channel])).toEqual([[seeded.world.userId('alice'), 'queue']]);
  });

  it('answers a member of another tenant with 404 and writes nothing; a bad channel is 422', async () => {
    as('erin');
    expect(await post(proposalId, { channel: 'queue' })).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    as('bob');
    expect(await post(proposalId, { channel: 'email' })).toMatchObject({ status: 422, body: { error: { code: 'invalid_view' } } });
    expect(await post(proposalId, { channel: 'queue', tenantId: 'globex' })).toMatchObject({ status: 422 });
    expect((await rows()).map((row) => row.userId)).toEqual([seeded.world.userId('alice')]);
  });
});

describe('PUT /api/v1/admin/oversight/settings', () => {
  const put = (body: unknown) => putSettings(new Request(`${ORIGIN}/api/v1/admin/oversight/settings`, { method: 'PUT', headers: { host: 'countersign.test', origin: ORIGIN, 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  const stored = async () => (await t.db.select({ min: tenants.oversightMinDecisions }).from(tenants).where(eq(tenants.id, 'acme')))[0]?.min;

  it('lets an admin change them (0 turns the alarm off) and refuses an approver and a bad value, changing nothing', async () => {
    as('alice');
    expect((await put({ minDecisions: 0, approvalRatePercent: 98, medianDwellSeconds: 5 })).status).toBe(403);
    as('carol');
    expect((await put({ minDecisions: 20, approvalRatePercent: 101, medianDwellSeconds: 5 })).status).toBe(422);
    expect(await stored()).toBe(20);
    const done = await put({ minDecisions: 0, approvalRatePercent: 98, medianDwellSeconds: 5 });
    expect([done.status, await done.json()]).toEqual([200, { settings: { minDecisions: 0, approvalRatePercent: 98, medianDwellSeconds: 5 } }]);
    expect(await stored()).toBe(0);
  });
});
