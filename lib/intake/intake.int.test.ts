import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, intakeAttempts, outbox, proposals } from '@/db/schema';
import { createAgentKey } from '@/lib/admin/accounts';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { payloadHash } from '@/lib/payload-hash';
import { setupTestDatabase } from '@/lib/testing/db';
import { expectApiError } from '@/lib/testing/errors';
import { proposalRow, rowCounts } from '@/lib/testing/queries';
import { agentPrincipal, seedWorld } from '@/lib/testing/world';
import type { FieldIssue } from './issues';
import { submitProposal } from './intake';

const t = setupTestDatabase();

let acme: AgentPrincipal;
let globex: AgentPrincipal;

beforeAll(async () => {
  const world = await seedWorld(t.db);
  acme = await world.agent('acme');
  globex = await world.agent('globex');
});

const hold = (requestId: string, args: Record<string, unknown> = { sku: 'filter-blue', quantity: 2 }, extra: Record<string, unknown> = {}) => ({
  requestId,
  action: 'hold_stock',
  contractVersion: 1,
  args,
  ...extra,
});

function submit(agent: AgentPrincipal, body: unknown, text = JSON.stringify(body)) {
  return submitProposal(t.db, agent, { text, value: body });
}

describe('submitProposal', () => {
  it('creates a pending hold_stock proposal with the exact normalized payload, its hash and the raw candidate', async () => {
    const text = '{\n  "requestId": "req_hold_1",\n  "action": "hold_stock", "contractVersion": 1,\n  "args": { "quantity": 2, "sku": "filter-blue" }\n}';
    const before = Date.now();
    const outcome = await submit(acme, JSON.parse(text), text);

    expect(outcome.created).toBe(true);
    const proposal = outcome.proposal;
    expect(proposal).toMatchObject({
      tenantId: 'acme',
      requestId: 'req_hold_1',
      agentKeyId: acme.keyId,
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
    expect(proposal.routing).toEqual({ rule: 'holds-one-approver', policyVersion: 1, outcome: 'needs_approval', approvals: 1, role: 'approver' });
    expect(proposal.expiresAt.getTime() - proposal.createdAt.getTime()).toBe(24 * 3_600_000);
    expect(proposal.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);

    // What is stored (and read back through jsonb) is what was returned, and still hashes the same.
    const stored = await proposalRow(t.db, proposal.id);
    expect(stored.payload).toEqual(proposal.payload);
    expect(stored.payloadHash).toBe(payloadHash(stored.payload));
    expect(stored.rawCandidate).toBe(text);

    const audit = await t.db.select().from(auditEvents).where(eq(auditEvents.proposalId, proposal.id));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      tenantId: 'acme',
      type: 'proposal.created',
      actorType: 'agent',
      actorId: acme.keyId,
      payloadHash: proposal.payloadHash,
      contractVersion: 1,
    });
    // The audit trail records hashes and reason codes, never the payload or its values.
    expect(JSON.stringify(audit[0]?.data)).not.toContain('filter-blue');

    const notifications = await t.db.select().from(outbox).where(eq(outbox.proposalId, proposal.id));
    expect(notifications).toHaveLength(1);
    expect(notifications[0]).toMatchObject({ tenantId: 'acme', topic: 'proposal.created', deliveredAt: null, deadAt: null });

    const attempts = await t.db.select().from(intakeAttempts).where(eq(intakeAttempts.proposalId, proposal.id));
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      tenantId: 'acme',
      agentKeyId: acme.keyId,
      requestId: 'req_hold_1',
      action: 'hold_stock',
      contractVersion: 1,
      outcome: 'accepted',
      httpStatus: 201,
    });
  });

  it('keeps evidence refs, in order, in the payload', async () => {
    const { proposal } = await submit(acme, hold('req_evidence', { sku: 'filter-gray', quantity: 1 }, { evidenceRefs: ['ticket_message_74', 'ticket_message_73'] }));
    expect(proposal.payload).toMatchObject({ evidenceRefs: ['ticket_message_74', 'ticket_message_73'] });
    expect(proposal.payloadHash).toBe(payloadHash(proposal.payload));
  });

  it('answers a retry (same requestId, same payload) with the same proposal, unchanged, writing nothing', async () => {
    const first = await submit(acme, hold('req_retry'));
    const counts = await rowCounts(t.db);
    // A retry may be formatted differently: only the normalized payload matters.
    const retryText = '{"args":{"sku":"filter-blue","quantity":2.0},"contractVersion":1,"action":"hold_stock","requestId":"req_retry","evidenceRefs":[]}';
    const retry = await submit(acme, JSON.parse(retryText), retryText);
    expect(retry.created).toBe(false);
    expect(retry.proposal).toEqual(first.proposal);
    expect(await proposalRow(t.db, first.proposal.id)).toEqual(first.proposal);
    expect(await rowCounts(t.db)).toEqual(counts);
  });

  it('refuses the same requestId with a different payload: 409 idempotency_conflict, original untouched', async () => {
    const first = await submit(acme, hold('req_conflict'));
    const counts = await rowCounts(t.db);
    await expectApiError(submit(acme, hold('req_conflict', { sku: 'filter-blue', quantity: 3 })), {
      status: 409,
      kind: 'idempotency',
      code: 'idempotency_conflict',
    });
    await expectApiError(submit(acme, hold('req_conflict', { sku: 'filter-blue', quantity: 2 }, { evidenceRefs: ['ticket_message_73'] })), {
      status: 409,
      code: 'idempotency_conflict',
    });
    expect(await proposalRow(t.db, first.proposal.id)).toEqual(first.proposal);
    expect(await rowCounts(t.db)).toEqual(counts);
  });

  it('refuses a tenantId in the body as an unknown field (422) and writes nothing', async () => {
    const counts = await rowCounts(t.db);
    const error = await expectApiError(submit(acme, hold('req_tenant', undefined, { tenantId: 'globex' })), {
      status: 422,
      kind: 'schema',
      code: 'contract_violation',
    });
    const issues = error.extra.issues as FieldIssue[];
    expect(issues.map(({ field, code }) => ({ field, code }))).toEqual([{ field: 'tenantId', code: 'unknown_field' }]);
    expect(await rowCounts(t.db)).toEqual(counts);
    const rows = await t.db.select().from(proposals).where(eq(proposals.requestId, 'req_tenant'));
    expect(rows).toEqual([]);
  });

  it('scopes requestIds to the key tenant: globex reusing an acme requestId gets its own proposal', async () => {
    const mine = await submit(acme, hold('req_shared'));
    const theirs = await submit(globex, hold('req_shared', { sku: 'filter-green', quantity: 1 }));
    expect(theirs.created).toBe(true);
    expect(theirs.proposal.id).not.toBe(mine.proposal.id);
    expect(theirs.proposal.tenantId).toBe('globex');
    expect(theirs.proposal.payload).toMatchObject({ tenantId: 'globex', args: { sku: 'filter-green', quantity: 1 } });
    // Even the identical args in the other tenant are a different payload (the tenant is part of it).
    const same = await submit(globex, hold('req_shared_2'));
    expect(same.proposal.payloadHash).not.toBe(mine.proposal.payloadHash);
    expect(await proposalRow(t.db, mine.proposal.id)).toEqual(mine.proposal);

    const globexAudit = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, 'globex'), eq(auditEvents.proposalId, theirs.proposal.id)));
    expect(globexAudit.map((row) => row.type)).toEqual(['proposal.created']);
  });

  it('refuses an action the key is not allowed (403 action_not_allowed) and writes nothing', async () => {
    const { key } = await createAgentKey(t.db, { tenantId: 'acme', agentName: 'refunds-only', actions: ['issue_refund'] });
    const refundsOnly = await agentPrincipal(t.db, key);
    const counts = await rowCounts(t.db);
    await expectApiError(submit(refundsOnly, hold('req_not_allowed')), { status: 403, kind: 'authorization', code: 'action_not_allowed' });
    expect(await rowCounts(t.db)).toEqual(counts);
  });

  it('refuses contractVersion 2 (422 unsupported_contract_version) and writes nothing', async () => {
    const counts = await rowCounts(t.db);
    const error = await expectApiError(submit(acme, { ...hold('req_v2'), contractVersion: 2 }), {
      status: 422,
      kind: 'schema',
      code: 'unsupported_contract_version',
    });
    expect(error.extra.supportedVersions).toEqual([1]);
    expect(await rowCounts(t.db)).toEqual(counts);
  });

  it('refuses arguments outside the contract (422) and writes nothing', async () => {
    const counts = await rowCounts(t.db);
    await expectApiError(submit(acme, hold('req_bad_args', { sku: 'filter-blue', quantity: 5 })), { status: 422, code: 'contract_violation' });
    await expectApiError(submit(acme, hold('req_bad_args', { sku: 'filter-blue', quantity: '2' })), { status: 422, code: 'contract_violation' });
    expect(await rowCounts(t.db)).toEqual(counts);
  });
});
