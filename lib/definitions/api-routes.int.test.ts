/**
 * The action definitions admin API (`/api/v1/admin/actions`) as Next calls it: the session's
 * person and tenant (next-auth and Next's cookies do not load outside Next, so `auth()` and
 * `cookies()` answer what this file names); the database, the routes, plan.ts and store.ts are real.
 */
import fs from 'node:fs';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as getVersions } from '@/app/api/v1/admin/actions/[name]/route';
import { POST as plan } from '@/app/api/v1/admin/actions/plan/route';
import { GET as list, PUT as publish } from '@/app/api/v1/admin/actions/route';
import { auditEvents } from '@/db/schema';
import { CACHE_CHANNEL } from '@/lib/cache/changes';
import { chainAllPending } from '@/lib/events/chainer';
import { ROUTE_ORIGIN, setupRouteWorld } from '@/test/route-world';
import type { Definition } from './document';
import { definitionPlanLines, planDefinition } from './plan';
import { definitionHistory, publishDefinition } from './store';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

const { t, seeded, as } = await setupRouteWorld();
const BASE = `${ROUTE_ORIGIN}/api/v1/admin/actions`;

/** The demo's hold_stock document under a name no seed publishes. */
const documentNamed = (name: string): Definition => ({
  ...(JSON.parse(fs.readFileSync('demo/actions/hold_stock.json', 'utf8')) as Definition),
  name,
});

type Answer = {
  status: number;
  body: {
    error?: { code: string; problems?: { path: string; message: string }[]; issues?: { field: string }[] };
    [key: string]: unknown;
  };
};
const answer = async (response: Response): Promise<Answer> => ({
  status: response.status,
  body: (await response.json()) as Answer['body'],
});

const json = (method: string, url: string, body: string, headers: Record<string, string> = {}) =>
  new Request(url, {
    method,
    headers: { host: 'countersign.test', origin: ROUTE_ORIGIN, 'content-type': 'application/json', ...headers },
    body,
  });
const put = async (body: unknown) => answer(await publish(json('PUT', BASE, JSON.stringify(body))));
const planOf = async (body: unknown) => answer(await plan(json('POST', `${BASE}/plan`, JSON.stringify(body))));
const getList = async () => answer(await list(new Request(BASE)));
const versionsOf = async (name: string) =>
  answer(await getVersions(new Request(`${BASE}/${name}`), { params: Promise.resolve({ name }) }));

/** Every payload on the cache channel while the file runs. */
const notified: string[] = [];
let stopListening: (() => Promise<void>) | undefined;
beforeAll(async () => {
  stopListening = await t.handle.listen(CACHE_CHANNEL, (payload) => notified.push(payload));
});
afterAll(async () => {
  await stopListening?.();
});

describe('who may call it', () => {
  const calls: [string, () => Promise<Response>][] = [
    ['GET list', () => list(new Request(BASE))],
    ['GET versions', () => getVersions(new Request(`${BASE}/x`), { params: Promise.resolve({ name: 'x' }) })],
    ['POST plan', () => plan(json('POST', `${BASE}/plan`, JSON.stringify({ document: documentNamed('x') })))],
    [
      'PUT',
      () => publish(json('PUT', BASE, JSON.stringify({ document: documentNamed('authz_probe'), note: 'Probe' }))),
    ],
  ];

  it.each(calls)('%s: no session is 401', async (_, call) => {
    as(undefined);
    expect(await answer(await call())).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
  });

  it.each(calls)('%s: an approver and a viewer are 403', async (_, call) => {
    for (const person of ['alice', 'dave'] as const) {
      as(person);
      expect(await answer(await call())).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
    }
  });

  it('refuses an agent key without a session (401) and a mutation from another origin (403), publishing nothing', async () => {
    as(undefined);
    const bearer = { authorization: `Bearer ${seeded.world.agentKey('acme')}` };
    expect((await list(new Request(BASE, { headers: bearer }))).status).toBe(401);
    as('carol');
    const body = JSON.stringify({ document: documentNamed('authz_probe'), note: 'Probe' });
    const crossOrigin = await publish(json('PUT', BASE, body, { origin: 'https://evil.test' }));
    expect(await answer(crossOrigin)).toMatchObject({ status: 403, body: { error: { code: 'cross_origin' } } });
    expect(await definitionHistory(t.db, 'acme', 'authz_probe')).toEqual([]);
  });
});

describe('publishing, then reading it back', () => {
  it('publishes v1 (201), audited as carol, announced to every process, and GET shows it', async () => {
    as('carol');
    const before = notified.length;
    const document = documentNamed('api_hold');
    const published = await put({ document, note: 'First version' });
    expect(published).toEqual({
      status: 201,
      body: {
        name: 'api_hold',
        version: 1,
        documentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        unchanged: false,
      },
    });
    await vi.waitFor(
      () => expect(notified.slice(before)).toContain(JSON.stringify({ kind: 'actions', tenantId: 'acme' })),
      {
        timeout: 20_000,
        interval: 10,
      },
    );

    const { body } = await getList();
    const listed = (body.actions as { name: string }[]).find((each) => each.name === 'api_hold');
    expect(listed).toEqual({
      name: 'api_hold',
      version: 1,
      documentHash: published.body.documentHash,
      note: 'First version',
      publishedBy: seeded.world.userId('carol'),
      publishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      document,
    });

    await chainAllPending(t.db);
    const events = await t.db
      .select({ actorType: auditEvents.actorType, actorId: auditEvents.actorId, data: auditEvents.data })
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, 'acme'), eq(auditEvents.type, 'action.published')));
    expect(events).toContainEqual({
      actorType: 'user',
      actorId: seeded.world.userId('carol'),
      data: { action: 'api_hold', version: 1, documentHash: published.body.documentHash, note: 'First version' },
    });
  });

  it('answers the current version unchanged with 200 and unchanged: true, writing nothing', async () => {
    as('carol');
    const reordered = Object.fromEntries(Object.entries(documentNamed('api_hold')).reverse());
    expect(await put({ document: reordered, note: 'Again' })).toMatchObject({
      status: 200,
      body: { name: 'api_hold', version: 1, unchanged: true },
    });
    expect((await definitionHistory(t.db, 'acme', 'api_hold')).map((row) => row.version)).toEqual([1]);
  });

  it('publishes a change planned against v1 as v2; GET of the name lists both, newest first', async () => {
    as('carol');
    const changed = { ...documentNamed('api_hold'), title: 'Hold stock for an order' };
    expect(await put({ document: changed, note: 'Clearer title', baseVersion: 1 })).toMatchObject({
      status: 201,
      body: { version: 2, unchanged: false },
    });
    const { status, body } = await versionsOf('api_hold');
    expect(status).toBe(200);
    expect(body.name).toBe('api_hold');
    expect((body.versions as { version: number; note: string }[]).map((each) => [each.version, each.note])).toEqual([
      [2, 'Clearer title'],
      [1, 'First version'],
    ]);
  });

  it('refuses a publish planned against a version that is no longer the newest: 409 stale_definition', async () => {
    as('carol');
    const stale = { ...documentNamed('api_hold'), title: 'Reserve stock' };
    expect(await put({ document: stale, note: 'From an old plan', baseVersion: 1 })).toMatchObject({
      status: 409,
      body: { error: { code: 'stale_definition', action: 'api_hold', currentVersion: 2 } },
    });
    expect(await put({ document: documentNamed('api_brand_new'), note: 'New', baseVersion: 3 })).toMatchObject({
      status: 409,
      body: { error: { code: 'stale_definition', currentVersion: 0 } },
    });
    expect((await definitionHistory(t.db, 'acme', 'api_hold')).map((row) => row.version)).toEqual([2, 1]);
    expect(await definitionHistory(t.db, 'acme', 'api_brand_new')).toEqual([]);
  });

  it('lets exactly one of two publishes planned against the same version in; the other is 409', async () => {
    as('carol');
    const racing = ['Hold stock (east)', 'Hold stock (west)'].map((title) =>
      put({ document: { ...documentNamed('api_hold'), title }, note: `Title ${title}`, baseVersion: 2 }),
    );
    const statuses = (await Promise.all(racing)).map((each) => each.status).sort();
    expect(statuses).toEqual([201, 409]);
    expect((await definitionHistory(t.db, 'acme', 'api_hold')).map((row) => row.version)).toEqual([3, 2, 1]);
  });

  it('answers 404 for a name the tenant never published', async () => {
    as('carol');
    expect(await versionsOf('never_published')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  });
});

describe('planning: what the CLI says, writing nothing', () => {
  it('says what changes and what breaks agents, in the CLI’s own lines', async () => {
    as('carol');
    const [current] = await definitionHistory(t.db, 'acme', 'api_hold');
    const document = structuredClone(current!.document);
    const args = document.contracts[0]!.args as { properties: Record<string, object>; required: string[] };
    args.properties.channel = { type: 'string', enum: ['web', 'phone'] };
    args.required.push('channel');
    const { status, body } = await planOf({ document });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      valid: true,
      name: 'api_hold',
      currentVersion: 3,
      unchanged: false,
      changes: ["Contract v1's arguments change."],
      breaking: ['contract v1: the field "channel" was made required'],
    });
    const cli = definitionPlanLines(await planDefinition(t.db, 'acme', JSON.stringify(document)));
    expect(body.lines).toEqual(cli);
    expect((await definitionHistory(t.db, 'acme', 'api_hold')).map((row) => row.version)).toEqual([3, 2, 1]);
  });

  it('answers a document with problems with 200 and the problems by path', async () => {
    as('carol');
    const broken = { ...documentNamed('api_hold'), rules: [{ code: 'x', require: 'args.quantity <', message: 'm' }] };
    expect(await planOf({ document: broken })).toMatchObject({
      status: 200,
      body: {
        valid: false,
        problems: [{ path: 'rules.0.require', message: expect.stringContaining('does not parse') }],
      },
    });
  });
});

/** hold_stock's document with one part broken. */
function broken(edit: (document: Record<string, unknown>) => void): Record<string, unknown> {
  const document = structuredClone(documentNamed('api_broken')) as unknown as Record<string, unknown>;
  edit(document);
  return document;
}
const argsOf = (document: Record<string, unknown>) =>
  (document.contracts as { args: Record<string, unknown> }[])[0]!.args as Record<string, unknown>;

describe('PUT: every refusal, nothing published', () => {
  type Expected = { issue?: string; problem?: string; says?: string };
  const valid = documentNamed('api_broken');
  const withNote = (document: unknown) => JSON.stringify({ document, note: 'Why' });
  it.each<[string, number, string, string, Expected]>([
    ['a body that is not JSON', 400, 'invalid_json', '{"document": ', {}],
    ['no document', 422, 'invalid_definition', JSON.stringify({ note: 'Why' }), { issue: 'document' }],
    ['no note', 422, 'invalid_definition', JSON.stringify({ document: valid }), { issue: 'note' }],
    ['a blank note', 422, 'invalid_definition', JSON.stringify({ document: valid, note: '   ' }), { issue: 'note' }],
    [
      'a note over 500 characters',
      422,
      'invalid_definition',
      JSON.stringify({ document: valid, note: 'n'.repeat(501) }),
      { issue: 'note' },
    ],
    [
      'an unknown key in the body',
      422,
      'invalid_definition',
      JSON.stringify({ document: valid, note: 'Why', tenantId: 'globex' }),
      { issue: 'tenantId' },
    ],
    [
      'an unknown key in the document, named by its path',
      422,
      'invalid_definition',
      withNote(broken((d) => Object.assign(d, { colour: 'red' }))),
      { problem: 'colour', says: '"colour" is not a field of a definition' },
    ],
    [
      'invalid CEL',
      422,
      'invalid_definition',
      withNote(broken((d) => Object.assign(d, { rules: [{ code: 'x', require: 'args.quantity <', message: 'm' }] }))),
      { problem: 'rules.0.require', says: 'does not parse' },
    ],
    [
      'an open object in a contract',
      422,
      'invalid_definition',
      withNote(broken((d) => delete argsOf(d).additionalProperties)),
      { problem: 'contracts.0.args', says: 'the object is open' },
    ],
    [
      'a document that is not an object',
      422,
      'invalid_definition',
      withNote('name: api_broken'),
      { problem: '(body)', says: 'must be object' },
    ],
  ])('%s: %i %s', async (_, status, code, body, { issue, problem, says }) => {
    as('carol');
    const refused = await answer(await publish(json('PUT', BASE, body)));
    expect(refused).toMatchObject({ status, body: { error: { code } } });
    if (issue !== undefined) expect(refused.body.error?.issues?.map((each) => each.field)).toContain(issue);
    if (problem !== undefined)
      expect(refused.body.error?.problems).toContainEqual({
        path: problem,
        message: expect.stringContaining(says ?? ''),
      });
    expect(await definitionHistory(t.db, 'acme', 'api_broken')).toEqual([]);
  });
});

describe('another tenant’s definitions', () => {
  it('are invisible: not listed, 404 by name, and a plan of the same name is new', async () => {
    const by = { type: 'system' as const, id: 'cli' };
    const published = await publishDefinition(t.db, {
      tenantId: 'globex',
      document: documentNamed('globex_only'),
      note: 'Globex alone',
      by,
    });
    expect(published.published).toBe(true);
    as('carol');
    const names = ((await getList()).body.actions as { name: string }[]).map((each) => each.name);
    expect(names).not.toContain('globex_only');
    expect(await versionsOf('globex_only')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(await planOf({ document: documentNamed('globex_only') })).toMatchObject({
      status: 200,
      body: { valid: true, currentVersion: null },
    });
    // Publishing the name in acme makes acme's v1 and leaves globex's alone.
    expect(await put({ document: documentNamed('globex_only'), note: 'Ours too', baseVersion: 0 })).toMatchObject({
      status: 201,
      body: { version: 1 },
    });
    expect((await definitionHistory(t.db, 'globex', 'globex_only')).map((row) => row.note)).toEqual(['Globex alone']);
  });
});
