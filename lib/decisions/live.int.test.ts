import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentKeys, commands, decisions, executions, outbox, type Proposal } from '@/db/schema';
import { createAgentKey, revokeAgentKey } from '@/lib/admin/accounts';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import type { DecisionRequest } from '@/lib/decisions/requests';
import { newId } from '@/lib/ids';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { submitAs } from '@/test/intake';
import { auditRowsFor, proposalRow, rowCounts } from '@/test/queries';
import { setupDemoSystems, unreachableSystemsClient } from '@/test/systems';
import { agentPrincipal, type PersonName, type SeededWorld, seedWorld } from '@/test/world';
import { decide } from './decide';

/** Meaning and Authority again at decision time (docs/design.md §6), and deny wins. */
const t = setupTestDatabase();
const systems = setupDemoSystems();

let world: SeededWorld;
let acme: AgentPrincipal;
let sequence = 0;

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
});

afterEach(async () => {
  await systems.reset();
});

async function propose(
  agent: AgentPrincipal,
  action: 'hold_stock' | 'issue_refund',
  args: Record<string, unknown>,
): Promise<Proposal> {
  const body = { requestId: `req_live_${++sequence}`, action, contractVersion: 1, args };
  const { proposal } = await submitAs(t.db, systems.client, agent, body);
  expect(proposal.status).toBe('pending_approval');
  return proposal;
}

const hold = (agent = acme) => propose(agent, 'hold_stock', { sku: 'filter-blue', quantity: 2 });
const refund = (amountMinor: number) =>
  propose(acme, 'issue_refund', {
    orderId: 'ord_1842',
    amountMinor,
    currency: 'USD',
    reason: 'Customer requested a refund',
  });

const approve = (proposal: Proposal): DecisionRequest => ({ decision: 'approve', payloadHash: proposal.payloadHash });
const reject = (proposal: Proposal, reason = 'Not requested'): DecisionRequest => ({
  decision: 'reject',
  payloadHash: proposal.payloadHash,
  reason,
});

function decideAs(person: PersonName, proposal: Proposal, request: DecisionRequest, client = systems.client) {
  return decide(t.db, client, { userId: world.userId(person), proposalId: proposal.id, request });
}

/** A refund written straight to the system of record, as if someone refunded outside Countersign. */
async function refundDirectly(orderId: string, amountMinor: number, currency: string) {
  const response = await fetch(`${systems.systems.service.url}/refunds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${systems.systems.credentials.payments}` },
    body: JSON.stringify({ orderId, amountMinor, currency, idempotencyKey: `test:direct:${++sequence}` }),
  });
  expect(response.status).toBeLessThan(300);
}

async function expectStale(proposal: Proposal, person: PersonName, reason: RegExp | string) {
  const before = await rowCounts(t.db);
  const error = await expectApiError(decideAs(person, proposal, approve(proposal)), {
    status: 409,
    kind: 'decision',
    code: 'stale',
  });
  const row = await proposalRow(t.db, proposal.id);
  expect(row.status).toBe('stale');
  expect(row.statusReason).toMatch(reason);
  expect(error.message).toContain(row.statusReason!);
  // Persisted although the decision was refused: the status, one audit event, one outbox row — and no decision.
  expect(await rowCounts(t.db)).toEqual({ ...before, auditEvents: before.auditEvents + 1, outbox: before.outbox + 1 });
  expect(await t.db.select().from(decisions).where(eq(decisions.proposalId, proposal.id))).toEqual([]);
  const audit = await auditRowsFor(t.db, proposal.id);
  expect(audit.at(-1)).toMatchObject({
    type: 'proposal.stale',
    actorType: 'user',
    actorId: world.userId(person),
    payloadHash: proposal.payloadHash,
  });
  const topics = await t.db.select({ topic: outbox.topic }).from(outbox).where(eq(outbox.proposalId, proposal.id));
  expect(topics.map((r) => r.topic)).toContain('proposal.stale');
  // A stale proposal is finished: nobody approves it afterwards, even once the world is back.
  await systems.reset();
  await expectApiError(decideAs('carol', proposal, approve(proposal)), { status: 409, code: 'already_decided' });
  return row;
}

describe('re-running Meaning and Authority at decision time', () => {
  it('approves when nothing moved; the proposal’s own claim is not counted against it (full balance)', async () => {
    const proposal = await refund(4999);
    await expect(decideAs('alice', proposal, approve(proposal))).resolves.toMatchObject({ status: 'approved' });
    // Deny wins: the approved refund has not started executing, so a reject still ends it.
    await decideAs('bob', proposal, reject(proposal, 'Refunded by phone already'));
  });

  it('approves when the order balance moved but still covers the refund, and notes the change on the approval', async () => {
    const proposal = await refund(1000);
    await refundDirectly('ord_1842', 2999, 'USD');
    await expect(decideAs('alice', proposal, approve(proposal))).resolves.toMatchObject({ status: 'approved' });
    const audit = await auditRowsFor(t.db, proposal.id);
    expect(audit.find((row) => row.type === 'proposal.approved')?.data).toMatchObject({ factsChanged: true });
    await decideAs('bob', proposal, reject(proposal, 'Cleaning up'));
  });

  it('makes the proposal stale when the order balance no longer covers it: the reason and the Meaning check say old → new', async () => {
    const proposal = await refund(3000);
    expect(proposal.facts).toMatchObject({ chargedMinor: 4999, refundedMinor: 0 });
    await refundDirectly('ord_1842', 2999, 'USD');
    const row = await expectStale(
      proposal,
      'alice',
      'order balance changed from 49.99 USD to 20.00 USD since it was proposed; at most 20.00 USD can be ' +
        'refunded (charged 49.99 USD, refunded 29.99 USD, 0.00 USD in open proposals)',
    );
    expect(row.gates.find((gate) => gate.gate === 'meaning')).toEqual({
      gate: 'meaning',
      ok: false,
      code: 'exceeds_refundable_balance',
      detail: row.statusReason,
    });
    expect(row.gates.filter((gate) => !gate.ok)).toHaveLength(1);
    expect((await auditRowsFor(t.db, proposal.id)).at(-1)).toMatchObject({
      reasonCode: 'exceeds_refundable_balance',
      data: { gate: 'meaning' },
    });
  });

  it('makes the proposal stale when the agent key was revoked since', async () => {
    const { key, id } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: 'short-lived-bot',
      actions: ['hold_stock'],
      grants: { warehouses: ['north'] },
    });
    const proposal = await hold(await agentPrincipal(t.db, key));
    await revokeAgentKey(t.db, id);
    await expectStale(proposal, 'bob', /agent key of short-lived-bot was revoked/);
  });

  it('makes the proposal stale when the key’s warehouse grant was removed since', async () => {
    const { key, id } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: 'north-bot',
      actions: ['hold_stock'],
      grants: { warehouses: ['north'] },
    });
    const proposal = await hold(await agentPrincipal(t.db, key));
    await t.db
      .update(agentKeys)
      .set({ grants: { warehouses: ['south'] } })
      .where(eq(agentKeys.id, id));
    const row = await expectStale(
      proposal,
      'alice',
      /grants of north-bot no longer cover sku:filter-blue since it was proposed/,
    );
    // The SKU's warehouse left the key's warehouses: Authority is the check that failed now.
    expect(row.gates.find((gate) => gate.gate === 'authority')).toMatchObject({ ok: false, code: 'grants_changed' });
    expect(row.gates.find((gate) => gate.gate === 'meaning')).toMatchObject({ ok: true });
  });

  it('answers 503 systems_unavailable when the system of record cannot be reached, and changes nothing', async () => {
    const proposal = await hold();
    const before = { counts: await rowCounts(t.db), row: await proposalRow(t.db, proposal.id) };
    const down = await unreachableSystemsClient();
    const error = await expectApiError(decideAs('alice', proposal, approve(proposal), down), {
      status: 503,
      kind: 'unavailable',
      code: 'systems_unavailable',
    });
    expect(error.headers['Retry-After']).toBe('5');
    expect({ counts: await rowCounts(t.db), row: await proposalRow(t.db, proposal.id) }).toEqual(before);
    // A reject needs no live state: deny works while the system of record is down.
    await expect(decideAs('alice', proposal, reject(proposal), down)).resolves.toMatchObject({ status: 'rejected' });
  });

  it('does not read the system of record for someone who may not decide (404 before 503)', async () => {
    const proposal = await hold();
    const down = await unreachableSystemsClient();
    await expectApiError(decideAs('erin', proposal, approve(proposal), down), { status: 404, code: 'not_found' });
    await expectApiError(decideAs('dave', proposal, approve(proposal), down), { status: 403, code: 'forbidden_role' });
  });
});

describe('deny wins', () => {
  it('a reject ends an approved proposal that has not started executing; the approval stays on record', async () => {
    const proposal = await hold();
    await decideAs('alice', proposal, approve(proposal));
    const rejected = await decideAs('bob', proposal, reject(proposal, 'Customer cancelled'));
    expect(rejected).toMatchObject({ status: 'rejected', statusReason: 'Customer cancelled' });
    const rows = await t.db.select().from(decisions).where(eq(decisions.proposalId, proposal.id));
    expect(rows.map((row) => [row.userId, row.decision]).sort()).toEqual(
      [
        [world.userId('alice'), 'approve'],
        [world.userId('bob'), 'reject'],
      ].sort(),
    );
    const audit = await auditRowsFor(t.db, proposal.id);
    expect(audit.map((row) => row.type)).toEqual([
      'proposal.created',
      'proposal.approved',
      'command.minted',
      'proposal.rejected',
    ]);
    expect(audit[3]).toMatchObject({
      actorId: world.userId('bob'),
      reasonCode: 'reject',
      data: { overruledApproval: true },
    });
    // An approve on a rejected proposal is already decided.
    await expectApiError(decideAs('carol', proposal, approve(proposal)), { status: 409, code: 'already_decided' });
  });

  it('a reject is refused once the command has started executing', async () => {
    const proposal = await hold();
    await decideAs('alice', proposal, approve(proposal));
    // The approval minted the command; an executions row means it started.
    const [command] = await t.db.select({ id: commands.id }).from(commands).where(eq(commands.proposalId, proposal.id));
    const commandId = command!.id;
    await t.db
      .insert(executions)
      .values({ id: newId('exe'), tenantId: 'acme', proposalId: proposal.id, commandId, status: 'executing' });
    await expectApiError(decideAs('bob', proposal, reject(proposal)), { status: 409, code: 'already_decided' });
    expect((await proposalRow(t.db, proposal.id)).status).toBe('approved');
  });
});
