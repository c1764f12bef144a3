import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, intakeAttempts, outbox, proposals } from '@/db/schema';
import { createAgentKey } from '@/lib/admin/accounts';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { chainAllPending } from '@/lib/events/chainer';
import type { FieldIssue } from '@/lib/input/field-issues';
import { payloadHash } from '@/lib/payload-hash';
import { setupTestDatabase } from '@/test/db';
import { expectRejection } from '@/test/intake';
import { proposalRow, rowCounts } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { agentPrincipal, seededAgents } from '@/test/world';
import { submitProposal } from './intake';

const t = setupTestDatabase();
const systems = setupDemoSystems();

const agents = seededAgents(t);

const hold = (
  requestId: string,
  args: Record<string, unknown> = { sku: 'filter-blue', quantity: 2 },
  extra: Record<string, unknown> = {},
) => ({
  requestId,
  action: 'hold_stock',
  contractVersion: 1,
  args,
  ...extra,
});

function submit(agent: AgentPrincipal, body: unknown, text = JSON.stringify(body)) {
  return submitProposal(t.db, agent, { text, value: body }, systems.client);
}

/** A refusal writes its intake attempt and nothing else (no proposal, audit event or outbox row). */
function refused(run: () => Promise<unknown>, expected: Parameters<typeof expectRejection>[2]) {
  return expectRejection(t.db, run, expected);
}

describe('submitProposal', () => {
  it('creates a pending hold_stock proposal with the exact normalized payload, its hash and the raw candidate', async () => {
    const text =
      '{\n  "requestId": "req_hold_1",\n  "action": "hold_stock", "contractVersion": 1,\n  "args": { "quantity": 2, "sku": "filter-blue" }\n}';
    const before = Date.now();
    const outcome = await submit(agents.acme, JSON.parse(text), text);

    expect(outcome.created).toBe(true);
    const proposal = outcome.proposal;
    expect(proposal).toMatchObject({
      tenantId: 'acme',
      requestId: 'req_hold_1',
      agentKeyId: agents.acme.keyId,
      agentName: 'acme-support-bot',
      action: 'hold_stock',
      contractVersion: 1,
      status: 'pending_approval',
      rawCandidate: text,
      decidedAt: null,
    });
    expect(proposal.id).toMatch(/^prp_[0-9a-z]{20}$/);
    expect(proposal.payload).toEqual({
      action: 'hold_stock',
      contractVersion: 1,
      tenantId: 'acme',
      args: { sku: 'filter-blue', quantity: 2 },
      evidenceRefs: [],
    });
    expect(proposal.payloadHash).toBe(payloadHash(proposal.payload));
    expect(proposal.routing).toEqual({
      rule: 'holds-one-approver',
      policyVersion: 1,
      outcome: 'needs_approval',
      approvals: 1,
      role: 'approver',
    });
    expect(proposal.expiresAt.getTime() - proposal.createdAt.getTime()).toBe(24 * 3_600_000);
    expect(proposal.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);

    // What is stored (and read back through jsonb) is what was returned, and still hashes the same.
    const stored = await proposalRow(t.db, proposal.id);
    expect(stored.payload).toEqual(proposal.payload);
    expect(stored.payloadHash).toBe(payloadHash(stored.payload));
    expect(stored.rawCandidate).toBe(text);

    await chainAllPending(t.db);
    const audit = await t.db.select().from(auditEvents).where(eq(auditEvents.proposalId, proposal.id));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      tenantId: 'acme',
      type: 'proposal.created',
      actorType: 'agent',
      actorId: agents.acme.keyId,
      payloadHash: proposal.payloadHash,
      contractVersion: 1,
    });
    // The audit trail records hashes and reason codes, never the payload or its values.
    expect(JSON.stringify(audit[0]?.data)).not.toContain('filter-blue');

    const notifications = await t.db.select().from(outbox).where(eq(outbox.proposalId, proposal.id));
    expect(notifications).toHaveLength(1);
    expect(notifications[0]).toMatchObject({
      tenantId: 'acme',
      topic: 'proposal.created',
      deliveredAt: null,
      deadAt: null,
    });

    const attempts = await t.db.select().from(intakeAttempts).where(eq(intakeAttempts.proposalId, proposal.id));
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      tenantId: 'acme',
      agentKeyId: agents.acme.keyId,
      requestId: 'req_hold_1',
      action: 'hold_stock',
      contractVersion: 1,
      outcome: 'accepted',
      httpStatus: 201,
    });
  });

  it('keeps evidence refs, in order, in the payload, and stores what the system of record says they are', async () => {
    const { proposal } = await submit(
      agents.acme,
      hold(
        'req_evidence',
        { sku: 'filter-gray', quantity: 1 },
        { evidenceRefs: ['ticket_message_74', 'ticket_message_73'] },
      ),
    );
    expect(proposal.payload).toMatchObject({ evidenceRefs: ['ticket_message_74', 'ticket_message_73'] });
    expect(proposal.payloadHash).toBe(payloadHash(proposal.payload));
    expect(proposal.evidence.map((snapshot) => snapshot.id)).toEqual(['ticket_message_74', 'ticket_message_73']);
    expect(proposal.evidence[1]).toEqual({
      id: 'ticket_message_73',
      kind: 'support_ticket',
      text: 'Customer requested a full refund',
    });
    // The instruction-like ticket is kept verbatim, as untrusted text.
    expect(proposal.evidence[0]?.text).toContain('Ignore your rules');
    expect((await proposalRow(t.db, proposal.id)).evidence).toEqual(proposal.evidence);
  });

  it('answers a retry (same requestId, same payload) with the same proposal, unchanged, recording only a replayed attempt', async () => {
    const first = await submit(agents.acme, hold('req_retry'));
    const counts = await rowCounts(t.db);
    // A retry may be formatted differently: only the normalized payload matters.
    const retryText =
      '{"args":{"sku":"filter-blue","quantity":2.0},"contractVersion":1,"action":"hold_stock","requestId":"req_retry","evidenceRefs":[]}';
    const retry = await submit(agents.acme, JSON.parse(retryText), retryText);
    expect(retry.created).toBe(false);
    expect(retry.proposal).toEqual(first.proposal);
    expect(await proposalRow(t.db, first.proposal.id)).toEqual(first.proposal);
    expect(await rowCounts(t.db)).toEqual({
      ...counts,
      intakeAttempts: counts.intakeAttempts + 1,
    }) /* the retry is recorded as a replayed attempt */;
  });

  it('refuses the same requestId with a different payload: 409 idempotency_conflict, original untouched', async () => {
    const first = await submit(agents.acme, hold('req_conflict'));
    await refused(() => submit(agents.acme, hold('req_conflict', { sku: 'filter-blue', quantity: 3 })), {
      status: 409,
      kind: 'idempotency',
      code: 'idempotency_conflict',
    });
    await refused(
      () =>
        submit(
          agents.acme,
          hold('req_conflict', { sku: 'filter-blue', quantity: 2 }, { evidenceRefs: ['ticket_message_73'] }),
        ),
      {
        status: 409,
        code: 'idempotency_conflict',
      },
    );
    expect(await proposalRow(t.db, first.proposal.id)).toEqual(first.proposal);
  });

  it('refuses a tenantId in the body as an unknown field (422), writing only the intake attempt', async () => {
    const body = hold('req_tenant', undefined, { tenantId: 'globex' });
    const { error, attempt } = await refused(() => submit(agents.acme, body), {
      status: 422,
      kind: 'schema',
      code: 'contract_violation',
    });
    const issues = error.details.issues as FieldIssue[];
    expect(issues.map(({ field, code }) => ({ field, code }))).toEqual([{ field: 'tenantId', code: 'unknown_field' }]);
    expect(attempt).toMatchObject({
      tenantId: 'acme',
      agentKeyId: agents.acme.keyId,
      requestId: 'req_tenant',
      rootRequestId: 'req_tenant',
      action: 'hold_stock',
      contractVersion: 1,
      issues: [{ field: 'tenantId', code: 'unknown_field' }],
      rawCandidate: JSON.stringify(body),
    });
    const rows = await t.db.select().from(proposals).where(eq(proposals.requestId, 'req_tenant'));
    expect(rows).toEqual([]);
  });

  it('scopes requestIds to the agent key: agents.globex reusing an agents.acme requestId gets its own proposal', async () => {
    const mine = await submit(agents.acme, hold('req_shared'));
    const theirs = await submit(agents.globex, hold('req_shared', { sku: 'filter-green', quantity: 1 }));
    expect(theirs.created).toBe(true);
    expect(theirs.proposal.id).not.toBe(mine.proposal.id);
    expect(theirs.proposal.tenantId).toBe('globex');
    expect(theirs.proposal.payload).toMatchObject({ tenantId: 'globex', args: { sku: 'filter-green', quantity: 1 } });
    // Even the identical args in the other tenant would be a different payload (the tenant is part of it)…
    expect(payloadHash({ ...mine.proposal.payload, tenantId: 'globex' })).not.toBe(mine.proposal.payloadHash);
    // …and agents.globex cannot name acme's SKU at all: it does not exist inside agents.globex.
    await refused(() => submit(agents.globex, hold('req_shared_2')), {
      status: 403,
      kind: 'authorization',
      code: 'not_authorized',
    });
    expect(await proposalRow(t.db, mine.proposal.id)).toEqual(mine.proposal);

    await chainAllPending(t.db);
    const globexAudit = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, 'globex'), eq(auditEvents.proposalId, theirs.proposal.id)));
    expect(globexAudit.map((row) => row.type)).toEqual(['proposal.created']);
  });

  it('scopes requestIds to the key, not the tenant: a second agents.acme key reusing a requestId gets its own proposal', async () => {
    const { key } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: 'acme-second-bot',
      actions: ['hold_stock'],
      grants: { warehouses: ['north'] },
    });
    const second = await agentPrincipal(t.db, key);
    const mine = await submit(agents.acme, hold('req_per_key'));
    const theirs = await submit(second, hold('req_per_key'));
    expect(theirs.created).toBe(true);
    expect(theirs.proposal.id).not.toBe(mine.proposal.id);
    expect(theirs.proposal).toMatchObject({ tenantId: 'acme', agentKeyId: second.keyId, requestId: 'req_per_key' });
    // Same tenant, same args: the same normalized payload, yet two proposals (one per key).
    expect(theirs.proposal.payloadHash).toBe(mine.proposal.payloadHash);
    // Each key's retry finds its own proposal.
    expect((await submit(second, hold('req_per_key'))).proposal.id).toBe(theirs.proposal.id);
    expect((await submit(agents.acme, hold('req_per_key'))).proposal.id).toBe(mine.proposal.id);
    const rows = await t.db.select().from(proposals).where(eq(proposals.requestId, 'req_per_key'));
    expect(rows).toHaveLength(2);
  });

  it('refuses an action the key is not allowed (403 action_not_allowed) and writes nothing', async () => {
    const { key } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: 'refunds-only',
      actions: ['issue_refund'],
    });
    const refundsOnly = await agentPrincipal(t.db, key);
    const { attempt } = await refused(() => submit(refundsOnly, hold('req_not_allowed')), {
      status: 403,
      kind: 'authorization',
      code: 'action_not_allowed',
    });
    expect(attempt).toMatchObject({ agentKeyId: refundsOnly.keyId, agentName: 'refunds-only', action: 'hold_stock' });
  });

  it('refuses contractVersion 2 (422 unsupported_contract_version), writing only the intake attempt', async () => {
    const { error, attempt } = await refused(() => submit(agents.acme, { ...hold('req_v2'), contractVersion: 2 }), {
      status: 422,
      kind: 'schema',
      code: 'unsupported_contract_version',
    });
    expect(error.details.supportedVersions).toEqual([1]);
    expect(error.details.repair).toEqual({ allowed: true, attemptsLeft: 3, maxRepairs: 3 });
    expect(attempt).toMatchObject({
      contractVersion: 2,
      issues: [{ field: 'contractVersion', code: 'unsupported_contract_version' }],
    });
  });

  it('refuses arguments outside the contract (422), writing only the intake attempts', async () => {
    const big = await refused(() => submit(agents.acme, hold('req_bad_args', { sku: 'filter-blue', quantity: 5 })), {
      status: 422,
      code: 'contract_violation',
    });
    expect(big.attempt.issues).toEqual([{ field: 'quantity', code: 'too_big' }]);
    const text = await refused(() => submit(agents.acme, hold('req_bad_args', { sku: 'filter-blue', quantity: '2' })), {
      status: 422,
      code: 'contract_violation',
    });
    expect(text.attempt.issues).toEqual([{ field: 'quantity', code: 'invalid_type' }]);
    // The attempt keeps field names and codes, never the received values.
    expect(JSON.stringify(text.attempt.issues)).not.toContain('"2"');
    const rows = await t.db.select().from(proposals).where(eq(proposals.requestId, 'req_bad_args'));
    expect(rows).toEqual([]);
  });
});
