/**
 * The grant routes as Next calls them: the session's person and tenant (next-auth and Next's
 * cookies do not load outside Next, so `auth()` and `cookies()` answer what this file names); the
 * database, the routes and the checks below them are real.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { POST as revoke } from '@/app/api/v1/grants/[id]/revoke/route';
import { POST as create, GET as list } from '@/app/api/v1/grants/route';
import { grants } from '@/db/schema';
import { decide } from '@/lib/decisions/decide';
import { submitAs } from '@/test/intake';
import { ROUTE_ORIGIN, setupRouteWorld } from '@/test/route-world';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

const { t, systems: systemsOfRecord, seeded, as } = await setupRouteWorld();
const ORIGIN = ROUTE_ORIGIN;
let proposalId = '';
let sequence = 0;

async function approvedHold(): Promise<string> {
  const body = {
    requestId: `req_grant_routes_${++sequence}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity: 1 },
  };
  const { proposal } = await submitAs(t.db, systemsOfRecord.client, seeded.acme, body);
  if (proposal.status !== 'pending_approval') return proposal.id;
  await decide(t.db, systemsOfRecord.client, {
    userId: seeded.world.userId('alice'),
    proposalId: proposal.id,
    request: { decision: 'approve', payloadHash: proposal.payloadHash },
  });
  return proposal.id;
}

beforeAll(async () => {
  await approvedHold(); // the SKU's first use
  proposalId = await approvedHold();
});

type Answer = {
  status: number;
  body: {
    id?: string;
    state?: string;
    grants?: { id: string }[];
    nextCursor?: string | null;
    error?: { code: string; issues?: { path: string }[] };
  };
};
const answer = async (response: Response): Promise<Answer> => ({
  status: response.status,
  body: (await response.json()) as Answer['body'],
});
const send = (path: string, body: string | undefined) =>
  new Request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { host: 'countersign.test', origin: ORIGIN, 'content-type': 'application/json' },
    body,
  });
const post = async (body: unknown) =>
  answer(await create(send('/api/v1/grants', typeof body === 'string' ? body : JSON.stringify(body))));
const get = async (query = '') => answer(await list(new Request(`${ORIGIN}/api/v1/grants${query}`)));
const revokeAs = async (id: string, body?: unknown) =>
  answer(
    await revoke(send(`/api/v1/grants/${id}/revoke`, body === undefined ? undefined : JSON.stringify(body)), {
      params: Promise.resolve({ id }),
    }),
  );

const valid = () => ({ proposalId, minutes: 60, maxCount: 3, sameResource: true, reason: 'Sale weekend' });

describe('POST /api/v1/grants', () => {
  it.each([
    ['malformed JSON', (): unknown => '{"proposalId":', 400, 'invalid_json'],
    ['an unknown field', () => ({ ...valid(), tenantId: 'globex' }), 422, 'invalid_grant'],
    ['minutes over 8 hours', () => ({ ...valid(), minutes: 481 }), 422, 'invalid_grant'],
    ['zero minutes', () => ({ ...valid(), minutes: 0 }), 422, 'invalid_grant'],
    ['minutes as a string', () => ({ ...valid(), minutes: '60' }), 422, 'invalid_grant'],
    ['a fractional count', () => ({ ...valid(), maxCount: 1.5 }), 422, 'invalid_grant'],
    ['a count of 0', () => ({ ...valid(), maxCount: 0 }), 422, 'invalid_grant'],
    ['a negative total', () => ({ ...valid(), maxTotalMinor: -1 }), 422, 'invalid_grant'],
    ['a blank reason', () => ({ ...valid(), reason: '   ' }), 422, 'invalid_grant'],
    ['no reason', () => ({ ...valid(), reason: undefined }), 422, 'invalid_grant'],
    ['sameResource missing', () => ({ ...valid(), sameResource: undefined }), 422, 'invalid_grant'],
    ['not a proposal id', () => ({ ...valid(), proposalId: 'g_123' }), 422, 'invalid_grant'],
    ['an unknown proposal', () => ({ ...valid(), proposalId: 'prp_unknown' }), 404, 'not_found'],
    ['a money cap on a stock hold', () => ({ ...valid(), maxTotalMinor: 500 }), 422, 'invalid_grant'],
  ] as const)('refuses %s and writes nothing', async (_why, body, status, code) => {
    as('alice');
    const before = await t.db.select().from(grants);
    const got = await post(body());
    expect(got).toMatchObject({ status, body: { error: { code } } });
    expect(await t.db.select().from(grants)).toEqual(before);
  });

  it('refuses no session (401) and a viewer (403)', async () => {
    as(undefined);
    expect((await post(valid())).status).toBe(401);
    as('dave');
    expect(await post(valid())).toMatchObject({ status: 403, body: { error: { code: 'forbidden_role' } } });
  });

  it('makes the grant for its approver (201), lists it for a viewer, and lets its approver revoke it', async () => {
    as('alice');
    const made = await post(valid());
    expect(made).toMatchObject({ status: 201, body: { state: 'active' } });
    const id = made.body.id!;
    expect(id).toMatch(/^g_/);

    as('dave');
    expect((await get()).body.grants?.map((grant) => grant.id)).toContain(id);
    expect((await get('?state=active')).body.grants?.map((grant) => grant.id)).toContain(id);
    expect(await revokeAs(id, {})).toMatchObject({ status: 403, body: { error: { code: 'forbidden_role' } } });

    as('alice');
    expect(await revokeAs(id, { reason: 'x', extra: 1 })).toMatchObject({
      status: 422,
      body: { error: { code: 'invalid_revocation' } },
    });
    expect(await revokeAs(id)).toMatchObject({ status: 200, body: { id, state: 'revoked' } });
    expect(await revokeAs(id, {})).toMatchObject({ status: 409, body: { error: { code: 'grant_ended' } } });
    expect((await get('?state=active')).body.grants?.map((grant) => grant.id)).not.toContain(id);
  });

  it('lists a page at a time and refuses a bad query', async () => {
    as('dave');
    for (const query of ['?state=old', '?cursor=nonsense', '?limit=5', '?state=all&state=active']) {
      expect(await get(query)).toMatchObject({ status: 400, body: { error: { code: 'invalid_query' } } });
    }
    expect(await get()).toMatchObject({ status: 200, body: { nextCursor: null } });
  });

  it('answers another tenant’s person 404 for this tenant’s grant', async () => {
    as('alice');
    const source = await approvedHold();
    const made = await post({ ...valid(), proposalId: source });
    as('erin');
    expect(await revokeAs(made.body.id!, {})).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await get()).body.grants).toEqual([]);
  });
});
