import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq, inArray } from 'drizzle-orm';
import { canonicalize } from 'json-canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, intakeAttempts, outbox, type ProposalStatus, policies, proposals } from '@/db/schema';
import { createAgentKey } from '@/lib/admin/accounts';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { decide } from '@/lib/decisions/decide';
import { notAuthorized } from '@/lib/errors/refusal';
import { chainAllPending } from '@/lib/events/chainer';
import { errorBody, refusalOf } from '@/lib/http/errors';
import { newId } from '@/lib/ids';
import { reconcileClaims } from '@/lib/jobs/reconcile-claims';
import { payloadHash } from '@/lib/payload-hash';
import { createSystemsClient, type SystemsClient } from '@/lib/systems/client';
import { setupTestDatabase } from '@/test/db';
import { expectRejection, submitAs } from '@/test/intake';
import { auditRowsFor, proposalRow, rowCounts } from '@/test/queries';
import { setupDemoSystems, unreachableSystemsClient } from '@/test/systems';
import { agentPrincipal, type SeededWorld, seedWorld } from '@/test/world';

/**
 * The gates after Shape (docs/design.md §1–§3, §13): Meaning and Authority against the demo systems of
 * record, the business rules of both built-in actions, and Routing by policy. Every refusal must
 * write its intake attempt and nothing else.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();

let world: SeededWorld;
let acme: AgentPrincipal;
let globex: AgentPrincipal;

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
  globex = await world.agent('globex');
});

let sequence = 0;
const nextId = (prefix: string) => `req_${prefix}_${++sequence}`;

type Body = {
  requestId: string;
  action: string;
  contractVersion: number;
  args: Record<string, unknown>;
  evidenceRefs?: string[];
};

const hold = (args: Record<string, unknown>, extra: Partial<Body> = {}): Body => ({
  requestId: nextId('hold'),
  action: 'hold_stock',
  contractVersion: 1,
  args,
  ...extra,
});

const refund = (args: Record<string, unknown>, extra: Partial<Body> = {}): Body => ({
  requestId: nextId('refund'),
  action: 'issue_refund',
  contractVersion: 1,
  args: {
    orderId: 'ord_1842',
    amountMinor: 1000,
    currency: 'USD',
    reason: 'Customer requested a full refund',
    ...args,
  },
  ...extra,
});

const submit = (agent: AgentPrincipal, body: Body, options: { client?: SystemsClient; now?: Date } = {}) =>
  submitAs(t.db, options.client ?? systems.client, agent, body, { now: options.now });

const refused = (run: () => Promise<unknown>, expected: Parameters<typeof expectRejection>[2]) =>
  expectRejection(t.db, run, expected);

/** Ends a proposal so it no longer holds a claim on its resource (cleanup between scenarios). */
async function close(id: string, status: ProposalStatus = 'cancelled') {
  await t.db.update(proposals).set({ status }).where(eq(proposals.id, id));
  // Written behind the transitions' back: the claims row is repaired as reconciliation would.
  await reconcileClaims(t.db);
}

async function closeOpenOn(resourceKey: string) {
  await t.db
    .update(proposals)
    .set({ status: 'cancelled' })
    .where(
      and(
        eq(proposals.resourceKey, resourceKey),
        inArray(proposals.status, ['pending_approval', 'approved', 'executing']),
      ),
    );
  // Written behind the transitions' back: the claims row is repaired as reconciliation would.
  await reconcileClaims(t.db);
}

const NOT_AUTHORIZED = JSON.stringify(errorBody(refusalOf(notAuthorized())));

describe('Meaning and Authority: a missing, foreign or out-of-scope resource is one answer', () => {
  const cases: [string, () => AgentPrincipal, () => Body][] = [
    ['an unknown SKU', () => acme, () => hold({ sku: 'filter-nope', quantity: 1 })],
    ['a globex SKU from the acme key', () => acme, () => hold({ sku: 'filter-green', quantity: 1 })],
    [
      'filter-red (warehouse south) from the north-only acme key',
      () => acme,
      () => hold({ sku: 'filter-red', quantity: 1 }),
    ],
    [
      'filter-red at its max_hold from the north-only acme key',
      () => acme,
      () => hold({ sku: 'filter-red', quantity: 2 }),
    ],
    ['an acme SKU from the globex key', () => globex, () => hold({ sku: 'filter-blue', quantity: 1 })],
    ['an unknown order', () => acme, () => refund({ orderId: 'ord_0000' })],
    [
      'a globex order from the acme key',
      () => acme,
      () => refund({ orderId: 'ord_9001', amountMinor: 100, currency: 'USD' }),
    ],
    [
      'an acme order from the globex key',
      () => globex,
      () => refund({ orderId: 'ord_1842', amountMinor: 100, currency: 'USD' }),
    ],
    [
      'a globex evidence ref on an acme hold',
      () => acme,
      () => hold({ sku: 'filter-blue', quantity: 1 }, { evidenceRefs: ['ticket_message_90'] }),
    ],
    [
      'an unknown evidence ref on an acme hold',
      () => acme,
      () => hold({ sku: 'filter-blue', quantity: 1 }, { evidenceRefs: ['ticket_message_999'] }),
    ],
    [
      'a globex evidence ref after a good one on an acme refund',
      () => acme,
      () => refund({}, { evidenceRefs: ['ticket_message_73', 'ticket_message_90'] }),
    ],
    ['an unknown evidence ref on an acme refund', () => acme, () => refund({}, { evidenceRefs: ['ticket_nope'] })],
    [
      'an acme evidence ref from the globex key',
      () => globex,
      () => refund({ orderId: 'ord_9001' }, { evidenceRefs: ['ticket_message_73'] }),
    ],
    [
      'an unknown SKU with a foreign evidence ref',
      () => acme,
      () => hold({ sku: 'filter-nope', quantity: 1 }, { evidenceRefs: ['ticket_message_90'] }),
    ],
  ];
  const bodies = new Map<string, string>();

  it.each(cases)('%s → 403 not_authorized, writing only the intake attempt', async (label, agent, makeBody) => {
    const body = makeBody();
    const { error, attempt } = await refused(() => submit(agent(), body), {
      status: 403,
      kind: 'authorization',
      code: 'not_authorized',
    });
    const text = JSON.stringify(errorBody(error));
    bodies.set(label, text);
    expect(text).toBe(NOT_AUTHORIZED);
    expect(error.headers).toEqual({});
    expect(attempt).toMatchObject({
      requestId: body.requestId,
      tenantId: agent().tenantId,
      action: body.action,
      issues: null,
      rawCandidate: JSON.stringify(body),
    });
    expect(await t.db.select().from(proposals).where(eq(proposals.requestId, body.requestId))).toEqual([]);
  });

  it('answers every one of them with byte-identical JSON bodies', () => {
    expect(bodies.size).toBe(cases.length);
    expect(new Set(bodies.values())).toEqual(new Set([NOT_AUTHORIZED]));
    // The body names no resource, tenant or warehouse.
    for (const word of ['filter', 'ord_', 'ticket', 'globex', 'acme', 'south', 'north'])
      expect(NOT_AUTHORIZED).not.toContain(word);
  });
});

describe('hold_stock: Meaning, Authority and the hold limit', () => {
  it('accepts filter-gray at its max_hold (2), with the warehouse from the catalog, and records each gate', async () => {
    const { proposal, created } = await submit(acme, hold({ sku: 'filter-gray', quantity: 2 }));
    expect(created).toBe(true);
    expect(proposal).toMatchObject({
      status: 'pending_approval',
      resourceKey: 'sku:filter-gray',
      facts: { warehouse: 'north', maxHold: 2 },
      risk: 'low',
      evidence: [],
      routing: {
        rule: 'holds-one-approver',
        policyVersion: 1,
        outcome: 'needs_approval',
        approvals: 1,
        role: 'approver',
      },
    });
    expect(proposal.gates.map(({ gate, ok }) => ({ gate, ok }))).toEqual([
      { gate: 'shape', ok: true },
      { gate: 'meaning', ok: true },
      { gate: 'authority', ok: true },
      { gate: 'routing', ok: true },
    ]);
    // The warehouse is a fact read at intake, never part of the payload the agent controls.
    expect(proposal.payload).toEqual({
      action: 'hold_stock',
      contractVersion: 1,
      tenantId: 'acme',
      args: { sku: 'filter-gray', quantity: 2 },
      evidenceRefs: [],
    });
  });

  it.each([
    ['filter-gray', 3, 2],
    ['filter-gray', 4, 2],
  ])('refuses %s × %i (max_hold %i) with 422 hold_limit, repairable', async (sku, quantity, maxHold) => {
    const body = hold({ sku, quantity });
    const { error, attempt } = await refused(() => submit(acme, body), {
      status: 422,
      kind: 'business_rule',
      code: 'hold_limit',
    });
    expect(error.message).toContain(String(maxHold));
    expect(error.details.repair).toEqual({ allowed: true, attemptsLeft: 3, maxRepairs: 3 });
    expect(attempt).toMatchObject({
      requestId: body.requestId,
      rootRequestId: body.requestId,
      action: 'hold_stock',
      issues: null,
    });
  });

  it('accepts filter-blue × 4 (max_hold 4) as medium risk', async () => {
    const { proposal } = await submit(acme, hold({ sku: 'filter-blue', quantity: 4 }));
    expect(proposal).toMatchObject({
      status: 'pending_approval',
      risk: 'medium',
      facts: { warehouse: 'north', maxHold: 4 },
    });
  });

  it('lets globex hold its own filter-green', async () => {
    const { proposal } = await submit(globex, hold({ sku: 'filter-green', quantity: 4 }));
    expect(proposal).toMatchObject({
      tenantId: 'globex',
      resourceKey: 'sku:filter-green',
      facts: { warehouse: 'north' },
    });
  });

  it('grants by warehouse: a key for south may hold filter-red, and not filter-blue', async () => {
    const { key } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: 'south-bot',
      actions: ['hold_stock'],
      grants: { warehouses: ['south'] },
    });
    const south = await agentPrincipal(t.db, key);
    const { proposal } = await submit(south, hold({ sku: 'filter-red', quantity: 2 }));
    expect(proposal).toMatchObject({ resourceKey: 'sku:filter-red', facts: { warehouse: 'south' } });
    await refused(() => submit(south, hold({ sku: 'filter-blue', quantity: 1 })), {
      status: 403,
      code: 'not_authorized',
    });
  });
});

describe('issue_refund: Meaning and the refundable balance', () => {
  it('refuses a refund in another currency than the order (ord_1843 is EUR) with 422 currency_mismatch', async () => {
    const { error } = await refused(
      () => submit(acme, refund({ orderId: 'ord_1843', amountMinor: 100, currency: 'USD' })),
      {
        status: 422,
        kind: 'business_rule',
        code: 'currency_mismatch',
      },
    );
    expect(error.message).toContain('EUR');
    expect(error.details.repair).toMatchObject({ allowed: true });
  });

  it.each([
    ['ord_1842', 5000, 'USD'],
    ['ord_1842', 1_000_000, 'USD'],
    // ord_1843: charged 60000, 2000 already refunded.
    ['ord_1843', 58001, 'EUR'],
  ])(
    'refuses %s for %i %s (over the refundable balance) with 422 exceeds_refundable_balance',
    async (orderId, amountMinor, currency) => {
      await refused(() => submit(acme, refund({ orderId, amountMinor, currency })), {
        status: 422,
        kind: 'business_rule',
        code: 'exceeds_refundable_balance',
      });
    },
  );

  it('counts the amounts of open proposals against the balance, and frees them when a proposal is rejected', async () => {
    const first = await submit(acme, refund({ amountMinor: 3000 }));
    expect(first.proposal).toMatchObject({
      status: 'pending_approval',
      resourceKey: 'order:ord_1842',
      facts: { currency: 'USD', chargedMinor: 4999, refundedMinor: 0 },
    });
    // 4999 − 3000 pending = 1999 left.
    const { error } = await refused(() => submit(acme, refund({ amountMinor: 2000 })), {
      status: 422,
      code: 'exceeds_refundable_balance',
    });
    expect(error.message).toContain('19.99 USD');

    await decide(t.db, systems.client, {
      userId: world.userId('alice'),
      proposalId: first.proposal.id,
      request: { decision: 'reject', payloadHash: first.proposal.payloadHash, reason: 'Wrong amount' },
    });
    const second = await submit(acme, refund({ amountMinor: 2000 }));
    expect(second.proposal.status).toBe('pending_approval');
    await close(second.proposal.id);
  });

  it.each<[ProposalStatus, boolean]>([
    ['pending_approval', true],
    ['approved', true],
    ['executing', true],
    ['succeeded', false],
    ['failed', false],
    ['outcome_unknown', false],
    ['rejected', false],
    ['expired', false],
    ['stale', false],
    ['cancelled', false],
  ])('a proposal that is %s holds a claim on the balance: %s', async (status, holds) => {
    await closeOpenOn('order:ord_1843');
    const whole = await submit(acme, refund({ orderId: 'ord_1843', amountMinor: 58000, currency: 'EUR' }));
    await close(whole.proposal.id, status);
    const probe = () => submit(acme, refund({ orderId: 'ord_1843', amountMinor: 1, currency: 'EUR' }));
    if (holds) {
      await refused(probe, { status: 422, code: 'exceeds_refundable_balance' });
    } else {
      expect((await probe()).proposal.status).toBe('pending_approval');
    }
    await closeOpenOn('order:ord_1843');
  });

  it('reads the balance live: once the system of record has refunded the whole order it is order_not_refundable', async () => {
    await closeOpenOn('order:ord_1842');
    const write = await fetch(`${systems.systems.service.url}/refunds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${systems.systems.credentials.payments}` },
      body: JSON.stringify({
        orderId: 'ord_1842',
        amountMinor: 4999,
        currency: 'USD',
        idempotencyKey: 'test:full-refund',
      }),
    });
    expect(write.status).toBeLessThan(300);
    try {
      await refused(() => submit(acme, refund({ amountMinor: 1 })), {
        status: 422,
        kind: 'business_rule',
        code: 'order_not_refundable',
      });
    } finally {
      await systems.reset();
    }
    const { proposal } = await submit(acme, refund({ amountMinor: 1 }));
    expect(proposal.facts).toMatchObject({ refundedMinor: 0 });
    await close(proposal.id);
  });

  it('routes a refund of 10000 minor units to one approver and one above 10000 to two (policy v2)', async () => {
    // A day after the refunds above (some left succeeded): outside the policy's 24 h aggregate window.
    const later = { now: new Date('2030-01-01T12:00:00.000Z') };
    await closeOpenOn('order:ord_1843');
    const small = await submit(acme, refund({ orderId: 'ord_1843', amountMinor: 10000, currency: 'EUR' }), later);
    expect(small.proposal).toMatchObject({
      risk: 'low',
      routing: {
        rule: 'refunds-up-to-100',
        policyVersion: 2,
        outcome: 'needs_approval',
        approvals: 1,
        role: 'approver',
      },
    });
    await closeOpenOn('order:ord_1843');
    const big = await submit(acme, refund({ orderId: 'ord_1843', amountMinor: 10001, currency: 'EUR' }), later);
    expect(big.proposal).toMatchObject({
      risk: 'high',
      routing: {
        rule: 'refunds-over-100',
        policyVersion: 2,
        outcome: 'needs_approval',
        approvals: 2,
        role: 'approver',
      },
    });

    // Two distinct approvers finish the big one.
    const approve = { decision: 'approve' as const, payloadHash: big.proposal.payloadHash };
    expect(
      (
        await decide(
          t.db,
          systems.client,
          { userId: world.userId('alice'), proposalId: big.proposal.id, request: approve },
          later.now,
        )
      ).status,
    ).toBe('pending_approval');
    expect(
      (
        await decide(
          t.db,
          systems.client,
          { userId: world.userId('bob'), proposalId: big.proposal.id, request: approve },
          later.now,
        )
      ).status,
    ).toBe('approved');
    await closeOpenOn('order:ord_1843');
  });

  it('stores a snapshot of the cited evidence (ticket_message_73) with the proposal, outside the payload hash', async () => {
    const body = refund(
      { orderId: 'ord_1843', amountMinor: 100, currency: 'EUR' },
      { evidenceRefs: ['ticket_message_73'] },
    );
    const { proposal } = await submit(acme, body);
    expect(proposal.evidence).toEqual([
      { id: 'ticket_message_73', kind: 'support_ticket', text: 'Customer requested a full refund' },
    ]);
    const stored = await proposalRow(t.db, proposal.id);
    expect(stored.evidence).toEqual(proposal.evidence);
    expect(stored.payload).toEqual({
      action: 'issue_refund',
      contractVersion: 1,
      tenantId: 'acme',
      args: body.args,
      evidenceRefs: ['ticket_message_73'],
    });
    // The audit trail names neither the evidence text nor the ref's contents.
    const audit = await auditRowsFor(t.db, proposal.id);
    expect(JSON.stringify(audit)).not.toContain('Customer requested');
    await close(proposal.id);
  });

  it('lets globex refund its own order with its own evidence', async () => {
    const { proposal } = await submit(
      globex,
      refund({ orderId: 'ord_9001', amountMinor: 100000 }, { evidenceRefs: ['ticket_message_90'] }),
    );
    expect(proposal).toMatchObject({ tenantId: 'globex', resourceKey: 'order:ord_9001', routing: { approvals: 2 } });
    expect(proposal.evidence.map((snapshot) => snapshot.id)).toEqual(['ticket_message_90']);
  });
});

describe('the payload hash is recomputable by anyone (docs/design.md §5)', () => {
  it.each([
    ['a hold', () => hold({ sku: 'filter-blue', quantity: 1 })],
    [
      'a refund with non-ASCII text and evidence',
      () =>
        refund(
          {
            orderId: 'ord_1843',
            amountMinor: 250,
            currency: 'EUR',
            reason: 'Remboursé — café ☕, “damaged” 😂 \u2028 line',
          },
          { evidenceRefs: ['ticket_message_74', 'ticket_message_73'] },
        ),
    ],
  ])(
    'recomputes %s from the stored payload with an independent JCS (json-canonicalize) and SHA-256',
    async (_label, makeBody) => {
      const { proposal } = await submit(acme, makeBody());
      const stored = await proposalRow(t.db, proposal.id);
      const recomputed = `sha256:${createHash('sha256').update(canonicalize(stored.payload), 'utf8').digest('hex')}`;
      expect(recomputed).toBe(stored.payloadHash);
      expect(recomputed).toBe(payloadHash(stored.payload));
      // The audit event carries the same hash.
      expect((await auditRowsFor(t.db, proposal.id))[0]?.payloadHash).toBe(recomputed);
      await close(proposal.id);
    },
  );
});

describe('the system of record unavailable: intake fails closed', () => {
  let fake: http.Server | undefined;
  let fakeUrl = '';
  let answer: (response: http.ServerResponse) => void = (response) => response.end();

  beforeAll(async () => {
    fake = http.createServer((_request, response) => answer(response));
    await new Promise<void>((resolve) => fake!.listen(0, '127.0.0.1', resolve));
    fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    fake?.closeAllConnections();
    await new Promise<void>((resolve) => fake?.close(() => resolve()));
  });

  const fakeClient = () =>
    createSystemsClient({
      baseUrl: fakeUrl,
      credentials: { payments: 'pay_fake_credential_1234', inventory: 'inv_fake_credential_1234' },
      timeoutMs: 300,
    });

  it.each([
    ['a hold', () => hold({ sku: 'filter-blue', quantity: 1 })],
    ['a refund', () => refund({ amountMinor: 1 })],
    [
      'a hold citing evidence',
      () => hold({ sku: 'filter-blue', quantity: 1 }, { evidenceRefs: ['ticket_message_73'] }),
    ],
  ])(
    'unreachable: %s → 503 systems_unavailable with Retry-After, nothing but the attempt written; later it goes ' +
      'through',
    async (_label, makeBody) => {
      const body = makeBody();
      const dead = await unreachableSystemsClient();
      const { error, attempt } = await refused(() => submit(acme, body, { client: dead }), {
        status: 503,
        kind: 'unavailable',
        code: 'systems_unavailable',
      });
      expect(Number(error.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
      expect(error.details).toEqual({});
      expect(attempt.requestId).toBe(body.requestId);
      // The refusal did not use up the requestId: the same request succeeds once the system is back.
      const { proposal, created } = await submit(acme, body);
      expect(created).toBe(true);
      await close(proposal.id);
    },
  );

  it.each<[string, (response: http.ServerResponse) => void]>([
    ['a 500', (response) => response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}')],
    ['a 401', (response) => response.writeHead(401).end()],
    ['malformed JSON', (response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"sku":')],
    [
      'a record of the wrong shape',
      (response) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"sku":"filter-blue","tenant":"acme"}'),
    ],
    ['no answer at all (timeout)', () => undefined],
  ])('answering %s → 503 systems_unavailable, nothing but the attempt written', async (_label, respond) => {
    answer = respond;
    await refused(() => submit(acme, hold({ sku: 'filter-blue', quantity: 1 }), { client: fakeClient() }), {
      status: 503,
      code: 'systems_unavailable',
    });
  });

  it('still answers a retry of an existing proposal (idempotency comes before Meaning)', async () => {
    const body = hold({ sku: 'filter-blue', quantity: 1 });
    const first = await submit(acme, body);
    const counts = await rowCounts(t.db);
    const retry = await submit(acme, body, { client: await unreachableSystemsClient() });
    expect(retry).toEqual({ created: false, proposal: first.proposal, headers: {} });
    expect(await rowCounts(t.db)).toEqual({
      ...counts,
      intakeAttempts: counts.intakeAttempts + 1,
    }) /* the retry is recorded as a replayed attempt */;
    await close(first.proposal.id);
  });
});

describe('Routing by the tenant policy (policies table)', () => {
  const NOW = new Date('2030-03-01T12:00:00.000Z');

  async function addPolicy(action: string, rules: unknown[], expiryHours = 24) {
    const versions = await t.db
      .select({ version: policies.version })
      .from(policies)
      .where(and(eq(policies.tenantId, 'acme'), eq(policies.action, action)));
    const version = Math.max(0, ...versions.map((row) => row.version)) + 1;
    await t.db.insert(policies).values({ id: newId('pol'), tenantId: 'acme', action, version, rules, expiryHours });
    return version;
  }

  it('denies with 403 denied_by_policy when the newest policy says deny, writing only the attempt', async () => {
    const version = await addPolicy('hold_stock', [
      { id: 'no-holds', description: 'Holds are frozen', when: null, outcome: 'deny', approvals: 0, role: 'admin' },
    ]);
    expect(version).toBe(2);
    const { error } = await refused(() => submit(acme, hold({ sku: 'filter-blue', quantity: 1 }), { now: NOW }), {
      status: 403,
      kind: 'authorization',
      code: 'denied_by_policy',
    });
    expect(error.message).toContain('no-holds');
  });

  it('denies when no rule matches (fails closed)', async () => {
    await addPolicy('hold_stock', [
      {
        id: 'big-holds-only',
        description: 'Only big holds',
        when: { field: 'quantity', above: 3 },
        outcome: 'needs_approval',
        approvals: 1,
        role: 'approver',
      },
    ]);
    await refused(() => submit(acme, hold({ sku: 'filter-blue', quantity: 1 }), { now: NOW }), {
      status: 403,
      code: 'denied_by_policy',
    });
    const { proposal } = await submit(acme, hold({ sku: 'filter-blue', quantity: 4 }), { now: NOW });
    expect(proposal.routing).toMatchObject({ rule: 'big-holds-only', outcome: 'needs_approval' });
    await close(proposal.id);
  });

  it('auto-approves when the policy says so: status approved at once, audited as such, no decision needed', async () => {
    const version = await addPolicy(
      'hold_stock',
      [
        {
          id: 'small-holds-auto',
          description: 'Small holds run at once',
          when: null,
          outcome: 'auto_approve',
          approvals: 0,
          role: 'approver',
        },
      ],
      6,
    );
    const { proposal, created } = await submit(acme, hold({ sku: 'filter-blue', quantity: 1 }), { now: NOW });
    expect(created).toBe(true);
    expect(proposal).toMatchObject({
      status: 'approved',
      routing: { rule: 'small-holds-auto', policyVersion: version, outcome: 'auto_approve' },
    });
    expect(proposal.decidedAt?.getTime()).toBe(NOW.getTime());
    expect(proposal.expiresAt.getTime()).toBe(NOW.getTime() + 6 * 3_600_000);
    const audit = await auditRowsFor(t.db, proposal.id);
    expect(audit.map((row) => [row.type, row.reasonCode])).toEqual([
      ['proposal.created', 'auto_approve'],
      ['command.minted', 'approved'],
    ]);
    const [attempt] = await t.db.select().from(intakeAttempts).where(eq(intakeAttempts.proposalId, proposal.id));
    expect(attempt).toMatchObject({ outcome: 'accepted', httpStatus: 201 });
    const [note] = await t.db.select().from(outbox).where(eq(outbox.proposalId, proposal.id));
    expect(note?.body).toMatchObject({ status: 'approved' });
  });

  it.each([1, 72, 168])('sets expiresAt from the policy expiry_hours (%i h)', async (hours) => {
    await addPolicy(
      'hold_stock',
      [
        {
          id: `expiry-${hours}`,
          description: 'One approver',
          when: null,
          outcome: 'needs_approval',
          approvals: 1,
          role: 'approver',
        },
      ],
      hours,
    );
    const { proposal } = await submit(acme, hold({ sku: 'filter-blue', quantity: 1 }), { now: NOW });
    expect(proposal.createdAt.getTime()).toBe(NOW.getTime());
    expect(proposal.expiresAt.getTime()).toBe(NOW.getTime() + hours * 3_600_000);
    await close(proposal.id);
  });

  it('keeps policies per tenant and per action: globex holds still follow v1 and acme refunds the demo v2', async () => {
    const theirs = await submit(globex, hold({ sku: 'filter-green', quantity: 1 }));
    expect(theirs.proposal.routing).toMatchObject({ rule: 'holds-one-approver', policyVersion: 1 });
    // At NOW, a day after this file's other refunds on the order (the aggregate window is 24 h).
    const ours = await submit(acme, refund({ orderId: 'ord_1843', amountMinor: 5, currency: 'EUR' }), { now: NOW });
    expect(ours.proposal.routing).toMatchObject({ rule: 'refunds-up-to-100', policyVersion: 2 });
    await close(ours.proposal.id);
    await close(theirs.proposal.id);
  });

  it('never wrote an audit row or outbox row for a refusal in this file', async () => {
    const created = await t.db.select({ id: proposals.id }).from(proposals);
    const ids = new Set(created.map((row) => row.id));
    await chainAllPending(t.db);
    const audit = await t.db.select({ proposalId: auditEvents.proposalId, type: auditEvents.type }).from(auditEvents);
    for (const row of audit.filter((event) => event.type.startsWith('proposal.')))
      expect(ids.has(row.proposalId!)).toBe(true);
    const notes = await t.db.select({ proposalId: outbox.proposalId }).from(outbox);
    for (const row of notes) expect(ids.has(row.proposalId!)).toBe(true);
  });
});
