/**
 * `PUT /api/v1/admin/passkeys/settings` as Next calls it: the session's person and tenant
 * (next-auth and Next's cookies do not load outside Next, so `auth()` and `cookies()` answer what
 * this file names); the database, the route and the checks below it are real.
 */
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PUT as putSettings } from '@/app/api/v1/admin/passkeys/settings/route';
import { grants, passkeys, tenants } from '@/db/schema';
import { decide } from '@/lib/decisions/decide';
import { createGrant } from '@/lib/grants/create';
import { submitAs } from '@/test/intake';
import { ROUTE_ORIGIN, setupRouteWorld } from '@/test/route-world';
import { settingsEvents } from '@/test/settings-events';
import { setPasskeysRequired, tenantPasskeys } from './tenant-setting';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

const { t, systems: systemsOfRecord, seeded, as } = await setupRouteWorld();
const ORIGIN = ROUTE_ORIGIN;
let sequence = 0;

// Other tests of a run approve without passkeys: whatever failed, acme ends with the setting off.
afterEach(async () => {
  await setPasskeysRequired(t.db, 'acme', false, { type: 'system', id: 'test' });
});

const put = async (body: string) => {
  const request = new Request(`${ORIGIN}/api/v1/admin/passkeys/settings`, {
    method: 'PUT',
    headers: { host: 'countersign.test', origin: ORIGIN, 'content-type': 'application/json' },
    body,
  });
  const response = await putSettings(request);
  return {
    status: response.status,
    body: (await response.json()) as {
      requirePasskeys?: boolean;
      changed?: boolean;
      error?: { code: string; issues?: { field: string }[] };
    },
  };
};
const required = async () =>
  (await t.db.select({ required: tenants.requirePasskeys }).from(tenants).where(eq(tenants.id, 'acme')))[0]?.required;
const settingEvents = () => settingsEvents(t.db, 'acme');

/** An active grant of alice's in acme, made from a hold she approved. */
async function activeGrant() {
  const body = {
    requestId: `req_passkey_settings_${++sequence}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity: 1 },
  };
  const { proposal } = await submitAs(t.db, systemsOfRecord.client, seeded.acme, body);
  const alice = seeded.world.userId('alice');
  await decide(t.db, systemsOfRecord.client, {
    userId: alice,
    proposalId: proposal.id,
    request: { decision: 'approve', payloadHash: proposal.payloadHash },
  });
  return createGrant(t.db, {
    tenantId: 'acme',
    userId: alice,
    request: { proposalId: proposal.id, minutes: 60, maxCount: 5, sameResource: false, reason: 'Routine holds' },
  });
}

describe('PUT /api/v1/admin/passkeys/settings', () => {
  it('lets an admin turn it on, audited in their name, ending the tenant’s standing grants; the same value again changes nothing', async () => {
    const grant = await activeGrant();
    const before = (await settingEvents()).length;
    as('carol');
    expect(await put('{"requirePasskeys": true}')).toEqual({
      status: 200,
      body: { requirePasskeys: true, changed: true },
    });
    expect(await required()).toBe(true);
    const events = await settingEvents();
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({
      actorType: 'user',
      actorId: seeded.world.userId('carol'),
      data: { requirePasskeys: true },
    });
    expect((await t.db.select().from(grants).where(eq(grants.id, grant.id)))[0]).toMatchObject({
      endReason: 'policy_changed',
      endedBy: seeded.world.userId('carol'),
    });

    expect(await put('{"requirePasskeys": true}')).toEqual({
      status: 200,
      body: { requirePasskeys: true, changed: false },
    });
    expect(await settingEvents()).toHaveLength(before + 1);

    expect(await put('{"requirePasskeys": false}')).toEqual({
      status: 200,
      body: { requirePasskeys: false, changed: true },
    });
    expect(await required()).toBe(false);
    expect((await settingEvents()).at(-1)).toMatchObject({
      actorId: seeded.world.userId('carol'),
      data: { requirePasskeys: false },
    });
  });

  it('leaves the grants alone when it stays off', async () => {
    const grant = await activeGrant();
    as('carol');
    expect(await put('{"requirePasskeys": false}')).toEqual({
      status: 200,
      body: { requirePasskeys: false, changed: false },
    });
    expect((await t.db.select().from(grants).where(eq(grants.id, grant.id)))[0]).toMatchObject({ endedAt: null });
  });

  it.each([
    { person: 'alice', who: 'an approver' },
    { person: 'dave', who: 'a viewer' },
    { person: 'erin', who: 'a member of another tenant' },
  ] as const)('refuses $who ($person) with 403, changing nothing', async ({ person }) => {
    const before = (await settingEvents()).length;
    as(person);
    expect(await put('{"requirePasskeys": true}')).toMatchObject({
      status: 403,
      body: { error: { code: 'forbidden' } },
    });
    expect(await required()).toBe(false);
    expect(await settingEvents()).toHaveLength(before);
  });

  it.each([
    ['an unknown field', '{"requirePasskeys": true, "tenantId": "globex"}'],
    ['a string for the boolean', '{"requirePasskeys": "true"}'],
    ['a number for the boolean', '{"requirePasskeys": 1}'],
    ['no field', '{}'],
  ])('refuses %s with 422 invalid_passkey_settings, changing nothing', async (_what, body) => {
    const before = (await settingEvents()).length;
    as('carol');
    expect(await put(body)).toMatchObject({ status: 422, body: { error: { code: 'invalid_passkey_settings' } } });
    expect(await required()).toBe(false);
    expect(await settingEvents()).toHaveLength(before);
  });
});

describe('tenantPasskeys (what the Security page shows an admin)', () => {
  it('counts the members with at least one passkey and says whether the reader has one', async () => {
    const alice = seeded.world.userId('alice');
    expect(await tenantPasskeys(t.db, 'acme', alice)).toEqual({
      required: false,
      members: 4,
      membersWithPasskey: 0,
      youHaveOne: false,
    });
    const key = (n: number) => ({
      id: `psk_settings_${n}`,
      userId: alice,
      credentialId: `cred-settings-${n}`,
      publicKey: 'pk',
      name: `Key ${n}`,
    });
    await t.db.insert(passkeys).values([key(1), key(2)]);
    try {
      expect(await tenantPasskeys(t.db, 'acme', alice)).toEqual({
        required: false,
        members: 4,
        membersWithPasskey: 1,
        youHaveOne: true,
      });
      expect(await tenantPasskeys(t.db, 'acme', seeded.world.userId('carol'))).toMatchObject({ youHaveOne: false });
      expect(await tenantPasskeys(t.db, 'globex', seeded.world.userId('erin'))).toEqual({
        required: false,
        members: 1,
        membersWithPasskey: 0,
        youHaveOne: false,
      });
    } finally {
      await t.db.delete(passkeys).where(eq(passkeys.userId, alice));
    }
    expect(await tenantPasskeys(t.db, 'nowhere', alice)).toBeUndefined();
  });
});
