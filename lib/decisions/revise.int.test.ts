import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentKeys, memberships, proposals } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { revisionRequest } from '@/lib/decisions/requests';
import { editingView } from '@/lib/decisions/revision-view';
import { readJsonRequest } from '@/lib/http/body';
import { reconcileClaims } from '@/lib/jobs/reconcile-claims';
import { payloadHash } from '@/lib/payload-hash';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { submitAs } from '@/test/intake';
import { auditRowsFor, proposalRow, rowCounts } from '@/test/queries';
import { setupDemoSystems, unreachableSystemsClient } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { reviseProposal, revisionOrigin } from './revise';

/** Edit before approve (docs/design.md §6): a new revision, re-gated, with its own hash; never an edit in place. */
const t = setupTestDatabase();
const systems = setupDemoSystems();
let world: SeededWorld;
let acme: AgentPrincipal;
let sequence = 0;

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
});

async function refund(amountMinor: number, orderId = 'ord_1842', currency = 'USD') {
  sequence += 1;
  const body = {
    requestId: `rev_${sequence}`,
    action: 'issue_refund',
    contractVersion: 1,
    args: { orderId, amountMinor, currency, reason: 'Customer asked' },
    evidenceRefs: ['ticket_message_73'],
  };
  return (await submitAs(t.db, systems.client, acme, body)).proposal;
}

const revise = (who: 'alice' | 'bob' | 'carol' | 'dave' | 'erin', proposalId: string, args: unknown) =>
  reviseProposal(t.db, systems.client, { reason: 'Edited in a test', userId: world.userId(who), proposalId, args });

async function closeOut(id: string) {
  await t.db.update(proposals).set({ status: 'rejected' }).where(eq(proposals.id, id));
  // Written behind the transitions' back: the claims row is repaired as reconciliation would.
  await reconcileClaims(t.db);
}

describe('reviseProposal', () => {
  it('creates a re-gated revision with its own hash, cancels the parent, and records both', async () => {
    const parent = await refund(4999);
    const revision = await revise('alice', parent.id, {
      orderId: 'ord_1842',
      amountMinor: 3000,
      currency: 'USD',
      reason: 'Partial: one item kept',
    });
    expect(revision).toMatchObject({
      status: 'pending_approval',
      parentId: parent.id,
      initiatedByUserId: world.userId('alice'),
      requestId: null,
      agentKeyId: acme.keyId,
    });
    expect(revision.payloadHash).not.toBe(parent.payloadHash);
    expect(revision.payloadHash).toBe(payloadHash(revision.payload));
    expect(revision.payload.evidenceRefs).toEqual(['ticket_message_73']);
    expect(await proposalRow(t.db, parent.id)).toMatchObject({
      status: 'cancelled',
      statusReason: `Replaced by revision ${revision.id}`,
    });
    expect((await auditRowsFor(t.db, parent.id)).map((row) => row.type)).toEqual([
      'proposal.created',
      'proposal.revised',
    ]);
    const created = await auditRowsFor(t.db, revision.id);
    expect(created.map((row) => [row.type, row.actorType, row.actorId])).toEqual([
      ['proposal.created', 'user', world.userId('alice')],
    ]);
    expect(await revisionOrigin(t.db, revision)).toEqual({
      parentId: parent.id,
      parentArgs: parent.payload.args,
      // The diff in words: money in major units with its currency, not "4999 → 3000".
      changes: [
        { field: 'amountMinor', label: 'amount', before: '49.99', after: '30.00', unit: 'USD' },
        { field: 'reason', label: 'reason', before: 'Customer asked', after: 'Partial: one item kept' },
      ],
      editor: 'Alice',
      reason: 'Edited in a test',
    });
    await closeOut(revision.id);
  });

  it('does not count the parent’s claim against the balance it replaces', async () => {
    const parent = await refund(4000);
    const revision = await revise('bob', parent.id, {
      orderId: 'ord_1842',
      amountMinor: 4999,
      currency: 'USD',
      reason: 'Full refund after all',
    });
    expect(revision.status).toBe('pending_approval');
    await closeOut(revision.id);
  });

  it('re-runs every gate: a contract violation and a business rule are refused, and nothing changes', async () => {
    const parent = await refund(1000);
    const before = await rowCounts(t.db);
    const shape = await expectApiError(
      revise('alice', parent.id, { orderId: 'ord_1842', amountMinor: '1000', currency: 'USD', reason: 'x' }),
      { status: 422, code: 'contract_violation' },
    );
    expect((shape.details.issues as { field: string }[]).map((issue) => issue.field)).toEqual(['amountMinor']);
    await expectApiError(
      revise('alice', parent.id, { orderId: 'ord_1842', amountMinor: 5000, currency: 'USD', reason: 'x' }),
      { status: 422, code: 'exceeds_refundable_balance' },
    );
    await expectApiError(revise('alice', parent.id, parent.payload.args), { status: 422, code: 'no_change' });
    expect(await rowCounts(t.db)).toEqual(before);
    expect((await proposalRow(t.db, parent.id)).status).toBe('pending_approval');
    await closeOut(parent.id);
  });

  it.each([
    ['the order', { orderId: 'ord_9001' }, ['orderId']],
    ['the currency', { currency: 'EUR' }, ['currency']],
    ['the order and the currency', { orderId: 'ord_1843', currency: 'EUR' }, ['orderId', 'currency']],
  ])(
    'refuses a revision that changes %s (locked: it names what is refunded), naming the field, before any gate',
    async (_what, change, fields) => {
      const parent = await refund(800);
      const before = await rowCounts(t.db);
      const error = await expectApiError(
        revise('alice', parent.id, { ...parent.payload.args, amountMinor: 700, ...change }),
        { status: 422, code: 'locked_field', kind: 'schema' },
      );
      expect(error.message).toContain(`${fields.join(' and ')} cannot be changed by an edit`);
      expect(
        (error.details.issues as { field: string; code: string }[]).map((issue) => [issue.field, issue.code]),
      ).toEqual(fields.map((field) => [field, 'locked']));
      expect(await rowCounts(t.db)).toEqual(before);
      expect((await proposalRow(t.db, parent.id)).status).toBe('pending_approval');
      await closeOut(parent.id);
    },
  );

  it('refuses a hold revision that changes the SKU, and accepts one that changes the quantity', async () => {
    sequence += 1;
    const { proposal: parent } = await submitAs(t.db, systems.client, acme, {
      requestId: `rev_${sequence}`,
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    });
    const error = await expectApiError(revise('alice', parent.id, { sku: 'filter-gray', quantity: 1 }), {
      status: 422,
      code: 'locked_field',
    });
    expect((error.details.issues as { field: string }[]).map((issue) => issue.field)).toEqual(['sku']);
    const revision = await revise('alice', parent.id, { sku: 'filter-blue', quantity: 3 });
    expect(await revisionOrigin(t.db, revision)).toMatchObject({
      changes: [{ field: 'quantity', label: 'quantity', before: '1', after: '3' }],
    });
    await closeOut(revision.id);
  });

  it('tells the form what is locked, which argument is money, and the live limit less the other open proposals', async () => {
    const other = await refund(1000);
    const parent = await refund(500);
    expect(await editingView(t.db, systems.client, parent)).toEqual({
      locked: ['orderId', 'currency'],
      money: [{ field: 'amountMinor', label: 'amount', currency: 'USD', digits: 2, value: '5.00' }],
      // 49.99 charged, nothing refunded, 10.00 claimed by the other open refund; this one's own claim is replaced.
      limit: { field: 'amountMinor', max: 3999, text: '39.99 USD', why: 'still refundable' },
    });
    const unavailable = await editingView(t.db, await unreachableSystemsClient(), parent);
    expect(unavailable.limit).toBeUndefined();
    expect(unavailable.limitUnavailable).toContain('could not be read');
    await closeOut(other.id);
    await closeOut(parent.id);
  });

  it('checks who may edit, and what may still be edited', async () => {
    const parent = await refund(500);
    const args = { orderId: 'ord_1842', amountMinor: 400, currency: 'USD', reason: 'x' };
    await expectApiError(revise('dave', parent.id, args), { status: 403, code: 'forbidden_role' });
    await expectApiError(revise('erin', parent.id, args), { status: 404, code: 'not_found' });
    await expectApiError(
      reviseProposal(t.db, systems.client, {
        reason: 'Edited in a test',
        userId: world.userId('alice'),
        proposalId: 'prp_unknown',
        args,
      }),
      { status: 404, code: 'not_found' },
    );
    await closeOut(parent.id);
    await expectApiError(revise('alice', parent.id, args), { status: 409, code: 'already_decided' });
  });

  it('refuses once the agent key is revoked: a revision acts with the agent’s authority', async () => {
    const parent = await refund(600);
    await t.db.update(agentKeys).set({ revokedAt: new Date() }).where(eq(agentKeys.id, acme.keyId));
    try {
      await expectApiError(
        revise('alice', parent.id, { orderId: 'ord_1842', amountMinor: 500, currency: 'USD', reason: 'x' }),
        { status: 403, code: 'not_authorized' },
      );
    } finally {
      await t.db.update(agentKeys).set({ revokedAt: null }).where(eq(agentKeys.id, acme.keyId));
      await closeOut(parent.id);
    }
  });

  it('reads the role at edit time', async () => {
    const parent = await refund(700);
    await t.db
      .update(memberships)
      .set({ role: 'viewer' })
      .where(eq(memberships.userId, world.userId('bob')));
    try {
      await expectApiError(
        revise('bob', parent.id, { orderId: 'ord_1842', amountMinor: 600, currency: 'USD', reason: 'x' }),
        { status: 403, code: 'forbidden_role' },
      );
    } finally {
      await t.db
        .update(memberships)
        .set({ role: 'approver' })
        .where(eq(memberships.userId, world.userId('bob')));
      await closeOut(parent.id);
    }
  });
});

/** What `POST /api/v1/proposals/:id/revisions` does with a body: read it with the route's schema, then revise. */
async function postRevision(who: 'alice', proposalId: string, body: unknown) {
  const request = new Request('http://countersign.test/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const { args, reason } = await readJsonRequest(request, revisionRequest);
  return reviseProposal(t.db, systems.client, { userId: world.userId(who), proposalId, args, reason });
}

describe('a revision carries a reason', () => {
  const args = { orderId: 'ord_1842', amountMinor: 2500, currency: 'USD', reason: 'Customer asked' };

  it.each([
    ['no reason', { args }, 'required', 'string'],
    ['an empty reason', { args, reason: '' }, 'too_small', 'string of at least 1 character'],
    ['a reason of blank space only', { args, reason: ' \n\t ' }, 'invalid_format', 'text matching /\\S/'],
    ['a reason of 501 characters', { args, reason: 'x'.repeat(501) }, 'too_big', 'string of at most 500 characters'],
    ['a reason that is a number', { args, reason: 5 }, 'invalid_type', 'string'],
    [
      'an unknown field beside it',
      { args, reason: 'Customer asked', editor: 'carol' },
      'unknown_field',
      'no such field',
    ],
  ])('refuses %s with 422 in the API’s issue shape, and changes nothing', async (_label, body, code, expected) => {
    const parent = await refund(4000);
    const before = await rowCounts(t.db);
    const error = await expectApiError(postRevision('alice', parent.id, body), {
      status: 422,
      code: 'invalid_revision',
      kind: 'schema',
    });
    const issues = error.details.issues as Record<string, unknown>[];
    expect(issues).toEqual([
      expect.objectContaining({
        field: 'editor' in body ? 'editor' : 'reason',
        code,
        expected: expect.stringContaining(expected),
      }),
    ]);
    for (const issue of issues)
      expect(Object.keys(issue).sort()).toEqual(['code', 'expected', 'field', 'message', 'received']);
    expect(await rowCounts(t.db)).toEqual(before);
    expect(await proposalRow(t.db, parent.id)).toMatchObject({ status: 'pending_approval' });
    await closeOut(parent.id);
  });

  it('stores the reason exactly as sent (500 characters, spaces kept) with the revision and in both audit events', async () => {
    const parent = await refund(4000);
    const reason = ` Customer kept one item <b>&amp; — ${'x'.repeat(464)} `;
    expect(reason).toHaveLength(500);
    const revision = await postRevision('alice', parent.id, { args, reason });
    expect(revision.revisionReason).toBe(reason);
    expect(parent.revisionReason).toBeNull();
    expect((await proposalRow(t.db, revision.id)).revisionReason).toBe(reason);
    const [revised] = (await auditRowsFor(t.db, parent.id)).filter((row) => row.type === 'proposal.revised');
    expect(revised?.data).toEqual({ revision: revision.id, revisionHash: revision.payloadHash, reason });
    const [created] = await auditRowsFor(t.db, revision.id);
    expect(created?.data).toMatchObject({ parent: parent.id, reason });
    expect(await revisionOrigin(t.db, revision)).toMatchObject({ editor: 'Alice', reason });
    await closeOut(revision.id);
  });
});
