import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as proposalRoute } from '@/app/api/v1/proposals/[id]/route';
import { outbox, type Proposal, proposals } from '@/db/schema';
import { reproposeRequest } from '@/lib/decisions/requests';
import { readJsonRequest } from '@/lib/http/body';
import { errorBody } from '@/lib/http/errors';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { submitAs } from '@/test/intake';
import { auditRowsFor, rowCounts } from '@/test/queries';
import { setupRouteSystems } from '@/test/systems';
import { agentRequest, type PersonName, type SeededWorld, seedWorld } from '@/test/world';
import { requestReproposal } from './repropose';

// The agent reads the proposal with its key; next-auth itself does not load outside Next.
vi.mock('@/lib/auth', () => ({ auth: async () => null }));

/** "Ask the agent to re-propose" (docs/design.md §6): who may, when, once; and what the agent reads. */
const t = setupTestDatabase();
const systemsOfRecord = await setupRouteSystems(t);
let world: SeededWorld;
let sequence = 0;

beforeAll(async () => {
  world = await seedWorld(t.db);
});

async function hold(): Promise<Proposal> {
  const body = {
    requestId: `req_repropose_${++sequence}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity: 1 },
  };
  return (await submitAs(t.db, systemsOfRecord.client, await world.agent('acme'), body)).proposal;
}

async function staleHold(): Promise<Proposal> {
  const proposal = await hold();
  const [row] = await t.db
    .update(proposals)
    .set({
      status: 'stale',
      statusReason: 'the grants of acme-support-bot no longer cover sku:filter-blue since it was proposed',
    })
    .where(eq(proposals.id, proposal.id))
    .returning();
  return row!;
}

async function driftedHold(): Promise<Proposal> {
  const proposal = await hold();
  const drift = {
    checkedAt: new Date().toISOString(),
    facts: { warehouse: 'north', maxHold: 3 },
    description: 'maxHold changed from 4 to 3 since it was proposed',
  };
  const [row] = await t.db.update(proposals).set({ drift }).where(eq(proposals.id, proposal.id)).returning();
  return row!;
}

const ask = (person: PersonName, proposal: Proposal, note?: string) =>
  requestReproposal(t.db, {
    userId: world.userId(person),
    proposalId: proposal.id,
    request: note === undefined ? {} : { note },
  });

describe('asking the agent to re-propose', () => {
  it.each<[string, () => Promise<Proposal>, PersonName, { status: number; code: string }]>([
    ['a viewer', staleHold, 'dave', { status: 403, code: 'forbidden_role' }],
    [
      'a member of another tenant (the same answer as an unknown id)',
      staleHold,
      'erin',
      { status: 404, code: 'not_found' },
    ],
    ['a pending proposal nothing changed under', hold, 'alice', { status: 409, code: 'not_changed' }],
  ])('refuses %s and changes nothing', async (_label, make, person, expected) => {
    const proposal = await make();
    const before = await rowCounts(t.db);
    await expectApiError(ask(person, proposal), expected);
    expect(await rowCounts(t.db)).toEqual(before);
  });

  it('answers an unknown id exactly as another tenant’s', async () => {
    const unknown = await expectApiError(ask('alice', { id: 'prp_00000000000000000000' } as Proposal), {
      status: 404,
      code: 'not_found',
    });
    const foreign = await expectApiError(ask('erin', await staleHold()), { status: 404, code: 'not_found' });
    expect(errorBody(foreign)).toEqual(errorBody(unknown));
  });

  it('records one audited event with an outbox row, refuses a second ask, and the agent reads it on its proposal', async () => {
    const proposal = await staleHold();
    const asked = await ask('alice', proposal, 'The warehouse moved; please propose from south.');
    expect(asked).toMatchObject({
      reason: proposal.statusReason,
      note: 'The warehouse moved; please propose from south.',
    });

    const event = (await auditRowsFor(t.db, proposal.id)).at(-1);
    expect(event).toMatchObject({
      type: 'proposal.repropose_requested',
      actorType: 'user',
      actorId: world.userId('alice'),
      reasonCode: 'stale',
      payloadHash: proposal.payloadHash,
    });
    const topics = await t.db.select({ topic: outbox.topic }).from(outbox).where(eq(outbox.proposalId, proposal.id));
    expect(topics.map((row) => row.topic)).toContain('proposal.repropose_requested');

    const before = await rowCounts(t.db);
    await expectApiError(ask('bob', proposal), { status: 409, code: 'already_requested' });
    expect(await rowCounts(t.db)).toEqual(before);

    const response = await proposalRoute(agentRequest(world.agentKey('acme')), {
      params: Promise.resolve({ id: proposal.id }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { reproposal: unknown }).reproposal).toEqual({
      requestedAt: asked.requestedAt,
      reason: proposal.statusReason,
      note: asked.note,
    });
  });

  it('lets an admin send back a pending proposal whose resource changed; the agent sees null before', async () => {
    const proposal = await driftedHold();
    const read = async () =>
      (
        (await (
          await proposalRoute(agentRequest(world.agentKey('acme')), { params: Promise.resolve({ id: proposal.id }) })
        ).json()) as { reproposal: unknown }
      ).reproposal;
    expect(await read()).toBeNull();
    await expect(ask('carol', proposal)).resolves.toMatchObject({
      reason: 'maxHold changed from 4 to 3 since it was proposed',
      note: null,
    });
    expect(await read()).toMatchObject({ reason: 'maxHold changed from 4 to 3 since it was proposed' });
  });
});

describe('the request body', () => {
  const post = (body: string | undefined) =>
    readJsonRequest(
      new Request('http://countersign.test/', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }),
      reproposeRequest,
    );

  it.each([
    ['no body at all', undefined, {}],
    ['an empty object', '{}', {}],
    ['a note', '{"note": "Please check the balance"}', { note: 'Please check the balance' }],
  ])('accepts %s', async (_label, body, expected) => {
    await expect(post(body)).resolves.toEqual(expected);
  });

  it.each([
    ['malformed JSON', '{"note": ', 400, 'invalid_json'],
    ['an unknown field', '{"requestId": "req_2"}', 422, 'invalid_repropose_request'],
    ['a note over 500 characters', JSON.stringify({ note: 'x'.repeat(501) }), 422, 'invalid_repropose_request'],
    ['an empty note', '{"note": ""}', 422, 'invalid_repropose_request'],
    ['a note that is not text', '{"note": 5}', 422, 'invalid_repropose_request'],
  ])('refuses %s', async (_label, body, status, code) => {
    await expectApiError(post(body), { status, code });
  });
});
