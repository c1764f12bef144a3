/**
 * First looks are the server's record of serving a waiting proposal to a person (docs/oversight.md),
 * never a client's say-so; a decision without one counts as zero dwell. Through the routes as Next
 * calls them (the session is the one this file names; database, routes and checks are real).
 */
import { and, eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { POST as noSuchPath } from '@/app/api/[...path]/route';
import { POST as decisionRoute } from '@/app/api/v1/proposals/[id]/decisions/route';
import { POST as recheckRoute } from '@/app/api/v1/proposals/[id]/recheck/route';
import { GET as proposalRoute } from '@/app/api/v1/proposals/[id]/route';
import { type Proposal, proposals, proposalViews } from '@/db/schema';
import { raiseRubberStampAlarms } from '@/lib/jobs/oversight-alarm';
import { submitAs } from '@/test/intake';
import { rowCounts } from '@/test/queries';
import { routeFiles } from '@/test/route-files';
import { ROUTE_ORIGIN, setupRouteWorld } from '@/test/route-world';
import type { PersonName } from '@/test/world';
import { oversightFigures } from './figures';
import { updateOversightSettings } from './settings';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

const { t, systems, seeded, as } = await setupRouteWorld();
let sequence = 0;

async function waiting(): Promise<Proposal> {
  const body = {
    requestId: `req_first_look_${++sequence}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity: 1 },
  };
  return (await submitAs(t.db, systems.client, seeded.acme, body)).proposal;
}

type Route = (request: Request, context: { params: Promise<{ id: string }> }) => Promise<Response> | Response;

async function call(
  route: Route,
  method: string,
  proposal: Proposal,
  path: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown }> {
  const headers = {
    host: 'countersign.test',
    origin: ROUTE_ORIGIN,
    ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...init.headers,
  };
  const request = new Request(`${ROUTE_ORIGIN}/api/v1/proposals/${proposal.id}${path}`, {
    method,
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const response = await route(request, { params: Promise.resolve({ id: proposal.id }) });
  return { status: response.status, body: method === 'HEAD' ? null : await response.json().catch(() => null) };
}

const looksAt = async (proposal: Proposal) =>
  (await t.db.select().from(proposalViews).where(eq(proposalViews.proposalId, proposal.id))).map((row) => [
    row.userId,
    row.channel,
  ]);
const lookOf = async (person: PersonName, proposal: Proposal) =>
  (
    await t.db
      .select()
      .from(proposalViews)
      .where(and(eq(proposalViews.proposalId, proposal.id), eq(proposalViews.userId, seeded.world.userId(person))))
  )[0];

const approve = async (person: PersonName, proposal: Proposal) => {
  as(person);
  return call(decisionRoute as Route, 'POST', proposal, '/decisions', {
    body: { decision: 'approve', payloadHash: proposal.payloadHash },
  });
};

describe('the server records a first look when it serves a waiting proposal to a person', () => {
  it('the operator API (GET /api/v1/proposals/:id with a session) records it under "api", once', async () => {
    const proposal = await waiting();
    as('alice');
    expect((await call(proposalRoute as Route, 'GET', proposal, '')).status).toBe(200);
    const first = await lookOf('alice', proposal);
    expect(first).toMatchObject({ channel: 'api', tenantId: 'acme' });
    expect((await call(proposalRoute as Route, 'GET', proposal, '')).status).toBe(200);
    expect(await lookOf('alice', proposal)).toEqual(first);
  });

  it('the queue’s preview and approve dialog (the one-proposal re-check they ask for) record it under "queue"', async () => {
    const proposal = await waiting();
    as('bob');
    expect((await call(recheckRoute as Route, 'POST', proposal, '/recheck', { body: {} })).status).toBe(200);
    expect(await lookOf('bob', proposal)).toMatchObject({ channel: 'queue' });
  });
});

describe('nothing but serving the proposal to that person makes a first look', () => {
  type Ask = (proposal: Proposal) => Promise<{ status: number }>;
  const read: Ask = (proposal) => call(proposalRoute as Route, 'GET', proposal, '');
  const postView =
    (channel: string): Ask =>
    (proposal) =>
      call(noSuchPath as Route, 'POST', proposal, '/views', { body: { channel } });
  const stopWaiting = async (proposal: Proposal) => {
    await t.db
      .update(proposals)
      .set({ status: 'rejected', decidedAt: new Date() })
      .where(eq(proposals.id, proposal.id));
  };
  it.each<[string, PersonName, Ask, number, ((proposal: Proposal) => Promise<void>)?]>([
    ...['queue', 'page', 'notification', 'api'].map(
      (channel) =>
        [`a client posting a view (${channel})`, 'alice', postView(channel), 404] as [string, PersonName, Ask, number],
    ),
    [
      'the agent reading it with its key',
      'alice',
      (proposal) =>
        call(proposalRoute as Route, 'GET', proposal, '', {
          headers: { authorization: `Bearer ${seeded.world.agentKey('acme')}` },
        }),
      200,
    ],
    ['a HEAD request (nothing served)', 'alice', (proposal) => call(proposalRoute as Route, 'HEAD', proposal, ''), 200],
    ['a member of another tenant asking for it', 'erin', read, 404],
    ['a read after it stopped waiting', 'alice', read, 200, stopWaiting],
    [
      'a re-check by a member of another tenant',
      'erin',
      (proposal) => call(recheckRoute as Route, 'POST', proposal, '/recheck', { body: {} }),
      404,
    ],
  ])('%s records nothing', async (_label, person, ask, status, prepare) => {
    const proposal = await waiting();
    await prepare?.(proposal);
    as(person);
    expect((await ask(proposal)).status).toBe(status);
    expect(await looksAt(proposal)).toEqual([]);
  });

  it('no route takes a client’s report of a look: the old views path is any unknown path (404) and changes nothing', async () => {
    expect(routeFiles('app/api').filter((file) => file.includes('views'))).toEqual([]);
    const proposal = await waiting();
    as('alice');
    const before = await rowCounts(t.db);
    expect(await call(noSuchPath as Route, 'POST', proposal, '/views', { body: { channel: 'queue' } })).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
    expect(await rowCounts(t.db)).toEqual(before);
  });
});

describe('a decision without a first look counts as zero dwell', () => {
  it('in the figures and the alarm: API approvals with no look (and views posted first) raise it', async () => {
    const carol = { userId: seeded.world.userId('carol'), tenantId: 'acme' };
    await updateOversightSettings(
      t.db,
      'acme',
      { type: 'system', id: 'test' },
      { minDecisions: 3, approvalRatePercent: 98, medianDwellSeconds: 5 },
    );
    for (let i = 0; i < 3; i++) {
      const proposal = await waiting();
      as('bob');
      await call(noSuchPath as Route, 'POST', proposal, '/views', { body: { channel: 'page' } });
      expect((await approve('bob', proposal)).status).toBe(200);
    }
    const figures = await oversightFigures(t.db, carol, 7);
    const bob = figures.approvers.find((row) => row.userId === seeded.world.userId('bob'));
    expect(bob).toMatchObject({
      decisions: 3,
      approvals: 3,
      dwellP50Ms: 0,
      dwellP10Ms: 0,
      dwellMeasured: 0,
      rubberStamp: true,
    });
    expect(figures.channels.find((row) => row.channel === 'unknown')).toMatchObject({ decisions: 3, dwellP50Ms: 0 });
    expect(await raiseRubberStampAlarms(t.db)).toEqual({ raised: 1 });
  });
});
