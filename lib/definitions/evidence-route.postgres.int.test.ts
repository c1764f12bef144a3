/**
 * A tenant's evidence resolver (issue 37, docs/actions.md "Evidence"): set through
 * `PUT /api/v1/admin/evidence/settings` as Next calls it (the session answers what this file names;
 * the database, the route and everything below it are real), then asked, over real HTTP with a
 * request proof, for the refs an agent cites: the team's service is written with the TypeScript
 * helper, on an origin the tests allow (ACTION_ALLOWED_ORIGINS, vitest.config.mts).
 */
import http from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as getSettings, PUT as putSettings } from '@/app/api/v1/admin/evidence/settings/route';
import { tenants } from '@/db/schema';
import { type EvidenceRequest, evidenceResolverHandler, nodeHandler } from '@/lib/agent-client/index';
import { commandIssuer } from '@/lib/commands/mint';
import { Refusal } from '@/lib/errors/refusal';
import { commandKeys } from '@/lib/signing/keys';
import { submitAs } from '@/test/intake';
import { ROUTE_ORIGIN, setupRouteWorld } from '@/test/route-world';
import { settingsEvents } from '@/test/settings-events';
import { setEvidenceResolver } from './evidence-resolver';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

const { t, systems, seeded, as } = await setupRouteWorld();
const RESOLVER = 'http://127.0.0.1:4791/evidence';

/** The team's tickets: one of acme's, one of globex's. */
const TICKETS = new Map([
  ['tkt_team_1', { tenant: 'acme', id: 'tkt_team_1', kind: 'team_ticket', text: 'The customer asked for a hold.' }],
  ['tkt_team_2', { tenant: 'globex', id: 'tkt_team_2', kind: 'team_ticket', text: "Globex's own ticket." }],
]);
const asked: EvidenceRequest[] = [];
const server = http.createServer();

beforeAll(async () => {
  const { jwks } = await commandKeys();
  const handler = evidenceResolverHandler({
    jwks: { keys: jwks },
    issuer: commandIssuer(),
    url: RESOLVER,
    find: (request) => {
      asked.push(request);
      return TICKETS.get(request.ref);
    },
  });
  server.on('request', nodeHandler(handler));
  await new Promise<void>((done) => server.listen(4791, '127.0.0.1', done));
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));
afterEach(async () => {
  await setEvidenceResolver(t.db, 'acme', null, { type: 'system', id: 'test' });
});

const request = (method: 'GET' | 'PUT', body?: string) =>
  new Request(`${ROUTE_ORIGIN}/api/v1/admin/evidence/settings`, {
    method,
    headers: { host: 'countersign.test', origin: ROUTE_ORIGIN, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body }),
  });
const put = async (body: string) => {
  const response = await putSettings(request('PUT', body));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const stored = async () =>
  (await t.db.select({ resolver: tenants.evidenceResolver }).from(tenants).where(eq(tenants.id, 'acme')))[0]?.resolver;
const settingEvents = () => settingsEvents(t.db, 'acme');

let sequence = 0;
const cite = (evidenceRefs: string[]) =>
  submitAs(t.db, systems.client, seeded.acme, {
    requestId: `req_evidence_resolver_${++sequence}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity: 1 },
    evidenceRefs,
  });
const refusalOf = (evidenceRefs: string[]) =>
  cite(evidenceRefs).then(
    () => undefined,
    (error: unknown) => (error instanceof Refusal ? [error.status, error.code, error.message] : error),
  );

describe("a tenant's evidence resolver", () => {
  it('is set by an admin, audited; cited refs are then asked of it, never of the systems of record', async () => {
    const before = (await settingEvents()).length;
    as('carol');
    expect(await put(JSON.stringify({ resolver: RESOLVER }))).toEqual({
      status: 200,
      body: { resolver: RESOLVER, changed: true },
    });
    expect(await (await getSettings(request('GET'))).json()).toEqual({ resolver: RESOLVER });
    const events = await settingEvents();
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({
      actorId: seeded.world.userId('carol'),
      data: { evidenceResolver: RESOLVER },
    });
    expect(await put(JSON.stringify({ resolver: RESOLVER }))).toMatchObject({ body: { changed: false } });

    const { proposal } = await cite(['tkt_team_1']);
    expect(proposal.evidence).toEqual([
      { id: 'tkt_team_1', kind: 'team_ticket', text: 'The customer asked for a hold.' },
    ]);
    expect(asked.at(-1)).toEqual({ tenant: 'acme', ref: 'tkt_team_1' });

    // Another tenant's record, a missing one, and a record only the systems of record hold: one answer.
    const missing = await refusalOf(['tkt_missing']);
    expect(missing).toEqual([403, 'not_authorized', expect.any(String)]);
    expect(await refusalOf(['tkt_team_2'])).toEqual(missing);
    expect(await refusalOf(['ticket_message_73'])).toEqual(missing);
  });

  it('cleared, reads the systems of record again', async () => {
    as('carol');
    await put(JSON.stringify({ resolver: RESOLVER }));
    expect(await put(JSON.stringify({ resolver: null }))).toEqual({
      status: 200,
      body: { resolver: null, changed: true },
    });
    const { proposal } = await cite(['ticket_message_73']);
    expect(proposal.evidence.map((record) => record.id)).toEqual(['ticket_message_73']);
  });

  it.each([
    ['an origin the operator does not allow', { resolver: 'http://127.0.0.1:4999/evidence' }],
    ['a URL that is not http(s)', { resolver: 'ftp://127.0.0.1:4791/evidence' }],
    ['a URL with credentials', { resolver: 'http://user:pw@127.0.0.1:4791/evidence' }],
    ['not a URL', { resolver: 'evidence' }],
    ['a number', { resolver: 4791 }],
    ['no resolver key', {}],
    ['an unknown key', { resolver: null, fallback: true }],
  ])('refuses %s with 422 invalid_evidence_settings, changing nothing', async (_what, body) => {
    const before = (await settingEvents()).length;
    as('carol');
    expect(await put(JSON.stringify(body))).toMatchObject({
      status: 422,
      body: { error: { code: 'invalid_evidence_settings' } },
    });
    expect(await stored()).toBeNull();
    expect(await settingEvents()).toHaveLength(before);
  });

  it.each(['alice', 'dave', 'erin'] as const)('refuses %s, who is no admin of acme, with 403', async (person) => {
    as(person);
    expect(await put(JSON.stringify({ resolver: RESOLVER }))).toMatchObject({
      status: 403,
      body: { error: { code: 'forbidden' } },
    });
    expect(await stored()).toBeNull();
  });
});
