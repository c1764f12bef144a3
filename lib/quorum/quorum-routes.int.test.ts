/**
 * Issue 35 §4, as reported: Bob approved a 150.00 EUR refund under a two-approver rule, was demoted
 * to viewer, Alice approved, and the refund executed with one current approver. Every step goes
 * through the routes Next calls (the agent's intake, the decision, the admin's role change, the
 * proposal read, the executor), on the real database and demo systems of record; only the session's
 * person is named by this file (next-auth does not load outside Next).
 */
import { and, eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { POST as executorRoute } from '@/app/api/executor/[scope]/route';
import { PATCH as memberRoute, DELETE as removeRoute } from '@/app/api/v1/admin/members/[userId]/route';
import { POST as registrationOptionsRoute } from '@/app/api/v1/me/passkeys/options/route';
import { POST as registerRoute } from '@/app/api/v1/me/passkeys/route';
import { POST as challengeRoute } from '@/app/api/v1/proposals/[id]/decisions/challenge/route';
import { POST as decisionRoute } from '@/app/api/v1/proposals/[id]/decisions/route';
import { GET as proposalRoute } from '@/app/api/v1/proposals/[id]/route';
import { POST as proposeRoute } from '@/app/api/v1/proposals/route';
import { commands, decisions, outbox } from '@/db/schema';
import { grantMembership } from '@/lib/admin/members';
import { buildEvidenceBundle } from '@/lib/audit/bundle';
import { verifyBundle } from '@/lib/audit/bundle-verify';
import { eventText } from '@/lib/audit/history';
import { notificationOf } from '@/lib/notifications/message';
import { commandKeys } from '@/lib/signing/keys';
import { SoftwareAuthenticator } from '@/test/passkey-authenticator';
import { auditRowsFor, proposalRow } from '@/test/queries';
import { ROUTE_ORIGIN, setupRouteWorld } from '@/test/route-world';
import type { PersonName } from '@/test/world';
import { agentRequest } from '@/test/world';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

const { t, seeded, as } = await setupRouteWorld();

type Answer = { status: number; body: Record<string, unknown> & { error?: { code: string; message: string } } };
type Route<P> = (request: Request, context: { params: Promise<P> }) => Promise<Response>;

async function call<P>(
  person: PersonName,
  route: Route<P>,
  method: string,
  path: string,
  params: P,
  body?: unknown,
): Promise<Answer> {
  as(person);
  const request = new Request(`${ROUTE_ORIGIN}${path}`, {
    method,
    headers: {
      host: 'countersign.test',
      origin: ROUTE_ORIGIN,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const response = await route(request, { params: Promise.resolve(params) });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

let sequence = 0;
async function proposeRefund(amountMinor = 15_000): Promise<{ id: string; payloadHash: string }> {
  const body = {
    requestId: `req_quorum_route_${++sequence}`,
    action: 'issue_refund',
    contractVersion: 1,
    args: { orderId: 'ord_1843', amountMinor, currency: 'EUR', reason: 'Damaged on arrival' },
  };
  const response = await proposeRoute(
    agentRequest(seeded.world.agentKey('acme'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  expect(response.status).toBe(201);
  const answer = ((await response.json()) as { proposal: { id: string; payloadHash: string; status: string } })
    .proposal;
  expect(answer.status).toBe('pending_approval');
  expect((await proposalRow(t.db, answer.id)).routing).toMatchObject({
    rule: 'refunds-over-100',
    approvals: 2,
    role: 'approver',
  });
  return answer;
}

const approve = (person: PersonName, proposal: { id: string; payloadHash: string }) =>
  call(
    person,
    decisionRoute,
    'POST',
    `/api/v1/proposals/${proposal.id}/decisions`,
    { id: proposal.id },
    { decision: 'approve', payloadHash: proposal.payloadHash },
  );
const setRole = (person: PersonName, role: string) => {
  const userId = seeded.world.userId(person);
  return call('carol', memberRoute, 'PATCH', `/api/v1/admin/members/${userId}`, { userId }, { role });
};
const commandsOf = (proposalId: string) => t.db.select().from(commands).where(eq(commands.proposalId, proposalId));

describe('an approval counts only while its approver may approve (issue 35 §4)', () => {
  it('Bob approves, is demoted to viewer, Alice approves: 1 of 2, no command; Carol completes it and it executes', async () => {
    const proposal = await proposeRefund();
    expect(await approve('bob', proposal)).toMatchObject({ status: 200, body: { status: 'pending_approval' } });
    expect(await setRole('bob', 'viewer')).toMatchObject({
      status: 200,
      body: { member: { role: 'viewer', previousRole: 'approver' } },
    });

    const alice = await approve('alice', proposal);
    expect(alice).toMatchObject({ status: 200, body: { status: 'pending_approval' } });
    expect(await commandsOf(proposal.id)).toEqual([]);

    // The proposal says so in words, and the API marks the approval withdrawn.
    const read = await call('alice', proposalRoute, 'GET', `/api/v1/proposals/${proposal.id}`, { id: proposal.id });
    const decisions = read.body.decisions as {
      by: { name: string };
      withdrawn?: { reason: string; role: string | null };
    }[];
    expect(decisions.map((d) => [d.by.name, d.withdrawn ?? null])).toEqual([
      ['Bob', expect.objectContaining({ reason: 'role_changed', role: 'viewer' })],
      ['Alice', null],
    ]);
    const events = await auditRowsFor(t.db, proposal.id);
    expect(events.map((event) => event.type)).toEqual([
      'proposal.created',
      'proposal.approval_added',
      'proposal.approval_withdrawn',
      'proposal.approval_added',
    ]);
    const withdrawal = events.find((event) => event.type === 'proposal.approval_withdrawn')!;
    expect(withdrawal).toMatchObject({
      actorId: seeded.world.userId('carol'),
      reasonCode: 'role_changed',
      data: { user: seeded.world.userId('bob'), role: 'viewer', approvals: 0, required: 2 },
    });
    expect(eventText(withdrawal)).toMatch(/^Bob's approval was withdrawn: their role changed to viewer/);
    // Notified like a decision: the proposal waits for another approver again.
    const notices = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.proposalId, proposal.id), eq(outbox.topic, 'proposal.decided')));
    const notice = notices.find((row) => (row.body as { decision?: string }).decision === 'withdrawn');
    expect(notice?.body).toMatchObject({ status: 'pending_approval', decision: 'withdrawn' });
    expect(notificationOf(notice!)).toBe('proposal.waiting');

    // A re-promotion does not bring the approval back, nor lets Bob approve a second time.
    expect(await setRole('bob', 'approver')).toMatchObject({ status: 200 });
    expect(await approve('bob', proposal)).toMatchObject({
      status: 409,
      body: { error: { code: 'already_decided', message: expect.stringMatching(/withdrawn/) } },
    });
    expect((await proposalRow(t.db, proposal.id)).status).toBe('pending_approval');

    expect(await approve('carol', proposal)).toMatchObject({ status: 200, body: { status: 'approved' } });
    const [command] = await commandsOf(proposal.id);
    const executed = await executorRoute(
      new Request('http://countersign.test/api/executor/payments', {
        method: 'POST',
        headers: { 'content-type': 'application/jose' },
        body: command!.jws,
      }),
      { params: Promise.resolve({ scope: 'payments' }) },
    );
    expect(await executed.json()).toMatchObject({ execution: { status: 'succeeded' } });
    // The evidence bundle of a proposal with a withdrawn approval still verifies offline.
    const report = await verifyBundle((await buildEvidenceBundle(t.db, 'acme', proposal.id, await commandKeys()))!);
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
  });

  it('an approver removed from the tenant: their approval is withdrawn in words', async () => {
    const proposal = await proposeRefund();
    expect(await approve('alice', proposal)).toMatchObject({ status: 200 });
    const alice = seeded.world.userId('alice');
    expect(
      await call('carol', removeRoute, 'DELETE', `/api/v1/admin/members/${alice}`, { userId: alice }),
    ).toMatchObject({ status: 200 });
    const events = await auditRowsFor(t.db, proposal.id);
    const withdrawal = events.find((event) => event.type === 'proposal.approval_withdrawn')!;
    expect(withdrawal).toMatchObject({ reasonCode: 'removed', data: { role: null, approvals: 0 } });
    expect(eventText(withdrawal)).toMatch(/^Alice's approval was withdrawn: they were removed from the tenant/);
    expect((await proposalRow(t.db, proposal.id)).status).toBe('pending_approval');
    await t.db.transaction((tx) =>
      grantMembership(tx, { tenantId: 'acme', userId: alice, role: 'approver', actor: { type: 'system', id: 'test' } }),
    );
  });

  it('a passkey-signed approval is withdrawn like any other, and keeps its signature on record', async () => {
    const authenticator = new SoftwareAuthenticator('countersign.test', ROUTE_ORIGIN);
    const options = await call('bob', registrationOptionsRoute, 'POST', '/api/v1/me/passkeys/options', {}, {});
    expect(
      await call(
        'bob',
        registerRoute,
        'POST',
        '/api/v1/me/passkeys',
        {},
        { name: 'Bob key', response: authenticator.register(options.body as { challenge: string }) },
      ),
    ).toMatchObject({ status: 201 });
    const proposal = await proposeRefund(10_200);
    const challenge = await call(
      'bob',
      challengeRoute,
      'POST',
      `/api/v1/proposals/${proposal.id}/decisions/challenge`,
      { id: proposal.id },
      { decision: 'approve' },
    );
    const { statement, options: assertion } = challenge.body as {
      statement: unknown;
      options: Parameters<SoftwareAuthenticator['assert']>[0];
    };
    const passkey = { statement, response: authenticator.assert(assertion) };
    expect(
      await call(
        'bob',
        decisionRoute,
        'POST',
        `/api/v1/proposals/${proposal.id}/decisions`,
        { id: proposal.id },
        { decision: 'approve', payloadHash: proposal.payloadHash, passkey },
      ),
    ).toMatchObject({ status: 200 });
    const signedEvent = (await auditRowsFor(t.db, proposal.id)).find(
      (event) => event.type === 'proposal.approval_added',
    );
    expect(signedEvent?.data.passkeySignature).toEqual(expect.any(String));

    expect(await setRole('bob', 'viewer')).toMatchObject({ status: 200 });
    const [row] = await t.db.select().from(decisions).where(eq(decisions.proposalId, proposal.id));
    expect(row).toMatchObject({ withdrawnReason: 'role_changed', withdrawnRole: 'viewer' });
    // The signed event stays in the trail as it was; the withdrawal is a new event beside it.
    const events = await auditRowsFor(t.db, proposal.id);
    expect(events.find((event) => event.type === 'proposal.approval_added')).toEqual(signedEvent);
    expect(events.map((event) => event.type)).toContain('proposal.approval_withdrawn');
    expect(await approve('alice', proposal)).toMatchObject({ status: 200, body: { status: 'pending_approval' } });
    expect(await commandsOf(proposal.id)).toEqual([]);
    expect(await setRole('bob', 'approver')).toMatchObject({ status: 200 });
  });
});
