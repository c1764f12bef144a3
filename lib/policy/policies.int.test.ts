import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, policies } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { chainAllPending } from '@/lib/events/chainer';
import type { RoutingRule } from '@/lib/routing-rules';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { submitAs } from '@/test/intake';
import { proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { currentPolicies } from './current';
import { previewPolicy } from './preview';
import type { PolicyView } from './requests';
import { savePolicies } from './save';

const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);

const NOTE = 'Tightening holds after the March audit';
const carol = () => ({ type: 'user' as const, id: seeded.world.userId('carol') });
const holdOf = (views: PolicyView[]) => views.find((view) => view.action === 'hold_stock')!;
const oneApprover: RoutingRule = {
  id: 'holds-one-approver',
  description: 'Every stock hold needs one approver',
  when: null,
  outcome: 'needs_approval',
  approvals: 1,
  role: 'approver',
};
const denyAbove3: RoutingRule = {
  id: 'no-big-holds',
  description: 'Holds above 3 are denied',
  when: { field: 'quantity', above: 3 },
  outcome: 'deny',
  approvals: 0,
  role: 'approver',
};

let requests = 0;
const hold = (agent: AgentPrincipal, quantity: number) =>
  submitAs(t.db, systems.client, agent, {
    requestId: `pol-hold-${++requests}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity },
  });
const refund = (agent: AgentPrincipal, amountMinor: number) =>
  submitAs(t.db, systems.client, agent, {
    requestId: `pol-refund-${++requests}`,
    action: 'issue_refund',
    contractVersion: 1,
    args: { orderId: 'ord_1843', amountMinor, currency: 'EUR', reason: 'Partial refund' },
  });

async function policyRows() {
  return t.db.select({ action: policies.action, version: policies.version, tenant: policies.tenantId }).from(policies);
}

/** acme's document with the hold_stock entry's first rule replaced (or the entry edited). */
async function holdDocument(edit: (entry: Record<string, unknown>) => void) {
  const views = await currentPolicies(t.db, 'acme');
  const entry = structuredClone(holdOf(views)) as unknown as Record<string, unknown>;
  edit(entry);
  return { policies: [entry], note: NOTE };
}
const withRule = (rule: Record<string, unknown>) => (entry: Record<string, unknown>) => {
  entry.rules = [{ ...oneApprover, ...rule }];
};

describe('GET: the policy document', () => {
  it('lists every action at its newest version, with who published it', async () => {
    const views = await currentPolicies(t.db, 'acme');
    expect(views.map((view) => [view.action, view.version, view.expiryHours, view.createdBy, view.note])).toEqual([
      ['hold_stock', 1, 24, null, null],
      ['issue_refund', 2, 24, null, null],
    ]);
    expect(holdOf(views).rules).toEqual([oneApprover]);
    expect(holdOf(views).createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});

describe('PUT: validated by the router’s own rule schema', () => {
  it.each([
    ['an unknown outcome', withRule({ outcome: 'maybe' }), 'policies.0.rules.0.outcome', 'invalid_value'],
    ['no approvers for needs_approval', withRule({ approvals: 0 }), 'policies.0.rules.0.approvals', 'invalid_rule'],
    ['six approvers', withRule({ approvals: 6 }), 'policies.0.rules.0.approvals', 'too_big'],
    [
      'approvers on a deny',
      withRule({ outcome: 'deny', approvals: 2 }),
      'policies.0.rules.0.approvals',
      'invalid_rule',
    ],
    ['a fractional quorum', withRule({ approvals: 1.5 }), 'policies.0.rules.0.approvals', 'invalid_type'],
    [
      'a negative bound',
      withRule({ when: { field: 'quantity', above: -1 } }),
      'policies.0.rules.0.when.above',
      'too_small',
    ],
    [
      'a bound given as a string',
      withRule({ when: { field: 'quantity', above: '3' } }),
      'policies.0.rules.0.when.above',
      'invalid_type',
    ],
    [
      'both above and below',
      withRule({ when: { field: 'quantity', above: 3, below: 1 } }),
      'policies.0.rules.0.when.above',
      'invalid_rule',
    ],
    [
      'an aggregate under "below"',
      withRule({ when: { field: 'quantity', below: 3, aggregate: { windowHours: 24 } } }),
      'policies.0.rules.0.when.aggregate',
      'invalid_rule',
    ],
    [
      'an aggregate window of 0 h',
      withRule({ when: { field: 'quantity', above: 3, aggregate: { windowHours: 0 } } }),
      'policies.0.rules.0.when.aggregate.windowHours',
      'too_small',
    ],
    [
      'an aggregate window over a year',
      withRule({ when: { field: 'quantity', above: 3, aggregate: { windowHours: 9000 } } }),
      'policies.0.rules.0.when.aggregate.windowHours',
      'too_big',
    ],
    ['an unknown field in a rule', withRule({ priority: 1 }), 'policies.0.rules.0.priority', 'unknown_field'],
    [
      'an unknown field in a bound',
      withRule({ when: { field: 'quantity', above: 3, or: 'below' } }),
      'policies.0.rules.0.when.or',
      'unknown_field',
    ],
    [
      'an unknown field in an aggregate',
      withRule({ when: { field: 'quantity', above: 3, aggregate: { windowHours: 24, scope: 'tenant' } } }),
      'policies.0.rules.0.when.aggregate.scope',
      'unknown_field',
    ],
    [
      'a bound on a text argument',
      withRule({ when: { field: 'sku', above: 3 } }),
      'policies.0.rules.0.when.field',
      'not_a_numeric_argument',
    ],
    [
      'a bound on no argument',
      withRule({ when: { field: 'amountMinor', above: 3 } }),
      'policies.0.rules.0.when.field',
      'not_a_numeric_argument',
    ],
    ['an unknown role', withRule({ role: 'owner' }), 'policies.0.rules.0.role', 'invalid_value'],
    [
      'two rules with one id',
      (entry: Record<string, unknown>) => void (entry.rules = [oneApprover, oneApprover]),
      'policies.0.rules.1.id',
      'invalid_rule',
    ],
    [
      'an expiry of 0 h',
      (entry: Record<string, unknown>) => void (entry.expiryHours = 0),
      'policies.0.expiryHours',
      'too_small',
    ],
    [
      'an expiry over 30 days',
      (entry: Record<string, unknown>) => void (entry.expiryHours = 721),
      'policies.0.expiryHours',
      'too_big',
    ],
    [
      'an unknown action',
      (entry: Record<string, unknown>) => void (entry.action = 'wire_money'),
      'policies.0.action',
      'unknown_action',
    ],
    [
      'an unknown field on the entry',
      (entry: Record<string, unknown>) => void (entry.tenantId = 'globex'),
      'policies.0.tenantId',
      'unknown_field',
    ],
  ])('refuses %s with 422 naming the field', async (_label, edit, field, code) => {
    const before = await policyRows();
    const error = await expectApiError(savePolicies(t.db, 'acme', carol(), await holdDocument(edit)), {
      status: 422,
      code: 'invalid_policy',
      kind: 'schema',
    });
    expect(error.details.issues).toContainEqual(expect.objectContaining({ field, code }));
    expect(await policyRows()).toEqual(before);
  });

  it.each([
    ['no note', undefined, 'required'],
    ['an empty note', '', 'too_small'],
    ['a blank note', ' \n\t ', 'invalid_format'],
    ['a note of 501 characters', 'x'.repeat(501), 'too_big'],
    ['a note that is a number', 42, 'invalid_type'],
    ['a note that is null', null, 'invalid_type'],
    ['a note that is a list', ['why'], 'invalid_type'],
  ])('refuses %s with 422 naming the field note, saving nothing', async (_label, note, code) => {
    const before = await policyRows();
    const document: Record<string, unknown> = await holdDocument(withRule({ approvals: 2 }));
    if (note === undefined) delete document.note;
    else document.note = note;
    const error = await expectApiError(savePolicies(t.db, 'acme', carol(), document), {
      status: 422,
      code: 'invalid_policy',
      kind: 'schema',
    });
    expect(error.details.issues).toEqual([expect.objectContaining({ field: 'note', code })]);
    expect(await policyRows()).toEqual(before);
  });

  it('refuses an empty document and an action named twice', async () => {
    await expectApiError(savePolicies(t.db, 'acme', carol(), { policies: [], note: NOTE }), {
      status: 422,
      code: 'invalid_policy',
    });
    const {
      policies: [entry],
    } = await holdDocument(() => undefined);
    const error = await expectApiError(savePolicies(t.db, 'acme', carol(), { policies: [entry, entry], note: NOTE }), {
      status: 422,
      code: 'invalid_policy',
    });
    expect(error.details.issues).toContainEqual(expect.objectContaining({ field: 'policies.1.action' }));
  });
});

describe('PUT: new immutable versions', () => {
  it('publishes nothing for an unchanged document', async () => {
    const before = await policyRows();
    const result = await savePolicies(t.db, 'acme', carol(), {
      policies: await currentPolicies(t.db, 'acme'),
      note: NOTE,
    });
    expect(result.saved).toEqual([]);
    expect(result.unchanged).toEqual(['hold_stock', 'issue_refund']);
    expect(await policyRows()).toEqual(before);
  });

  it('publishes the next version of a changed action only, audited with the version, in its tenant only', async () => {
    const document = { policies: await currentPolicies(t.db, 'acme'), note: NOTE };
    holdOf(document.policies).rules = [denyAbove3, oneApprover];
    const result = await savePolicies(t.db, 'acme', carol(), document);
    expect(result.saved).toEqual([
      {
        action: 'hold_stock',
        previousVersion: 1,
        version: 2,
        before: { rules: [oneApprover], expiryHours: 24 },
        after: { rules: [denyAbove3, oneApprover], expiryHours: 24 },
      },
    ]);
    expect(result.unchanged).toEqual(['issue_refund']);
    expect(holdOf(result.policies)).toMatchObject({
      version: 2,
      createdBy: { name: 'Carol', email: 'carol@acme.test' },
      note: NOTE,
    });
    expect(holdOf(await currentPolicies(t.db, 'acme')).note).toBe(NOTE);
    await chainAllPending(t.db);
    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.tenantId, 'acme'),
          eq(auditEvents.type, 'policy.published'),
          eq(auditEvents.reasonCode, 'v2'),
        ),
      );
    expect(event).toMatchObject({
      actorType: 'user',
      actorId: seeded.world.userId('carol'),
      data: expect.objectContaining({
        action: 'hold_stock',
        version: 2,
        rules: 'no-big-holds,holds-one-approver',
        note: NOTE,
      }),
    });
    expect(holdOf(await currentPolicies(t.db, 'globex')).version).toBe(1);
  });

  it('refuses an edit of a version that is no longer the newest with 409 stale_policy, saving nothing', async () => {
    const before = await policyRows();
    const stale = await holdDocument((entry) => {
      entry.version = 1;
      entry.expiryHours = 12;
    });
    const error = await expectApiError(savePolicies(t.db, 'acme', carol(), stale), {
      status: 409,
      code: 'stale_policy',
    });
    expect(error.details).toEqual({ action: 'hold_stock', currentVersion: 2, yourVersion: 1 });
    expect(error.message).toContain('v2');
    expect(await policyRows()).toEqual(before);
  });

  it('a pending proposal keeps the routing it was given; the next one is routed by the new version', async () => {
    const first = await hold(seeded.acme, 2);
    expect(first.proposal).toMatchObject({
      status: 'pending_approval',
      routing: { rule: 'holds-one-approver', policyVersion: 2, approvals: 1 },
    });
    const document = await holdDocument(
      (entry) => void (entry.rules = [denyAbove3, { ...oneApprover, id: 'holds-two-approvers', approvals: 2 }]),
    );
    expect((await savePolicies(t.db, 'acme', carol(), document)).saved.map((change) => change.version)).toEqual([3]);

    const kept = await proposalRow(t.db, first.proposal.id);
    expect(kept).toMatchObject({
      status: 'pending_approval',
      routing: { rule: 'holds-one-approver', policyVersion: 2, approvals: 1 },
    });
    expect(kept?.expiresAt).toEqual(first.proposal.expiresAt);
    const second = await hold(seeded.acme, 2);
    expect(second.proposal.routing).toMatchObject({ rule: 'holds-two-approvers', policyVersion: 3, approvals: 2 });
  });
});

describe('preview: the router on a draft, then intake agrees', () => {
  it('routes a sample by the draft as saving it would, and intake then routes the same way', async () => {
    const rules = [
      { ...denyAbove3, when: { field: 'quantity', above: 2 } },
      { ...oneApprover, id: 'holds-one-again' },
    ];
    const denied = await previewPolicy(t.db, systems.client, 'acme', {
      action: 'hold_stock',
      rules,
      expiryHours: 6,
      sample: { args: { sku: 'filter-blue', quantity: 3 } },
    });
    expect(denied).toMatchObject({
      routing: { rule: 'no-big-holds', outcome: 'deny', policyVersion: 4 },
      rule: { index: 0, id: 'no-big-holds' },
      expiryHours: 6,
    });
    const preview = await previewPolicy(t.db, systems.client, 'acme', {
      action: 'hold_stock',
      rules,
      expiryHours: 6,
      sample: { args: { sku: 'filter-blue', quantity: 1 } },
    });
    expect(preview.resource).toContain('filter-blue');
    expect(await policyRows()).not.toContainEqual(expect.objectContaining({ version: 4 }));

    await savePolicies(
      t.db,
      'acme',
      carol(),
      await holdDocument((entry) => Object.assign(entry, { rules, expiryHours: 6 })),
    );
    const admitted = await hold(seeded.acme, 1);
    expect(admitted.proposal.routing).toEqual(preview.routing);
    expect(admitted.proposal.expiresAt.getTime() - admitted.proposal.createdAt.getTime()).toBe(6 * 3_600_000);
    await expectApiError(hold(seeded.acme, 3), { status: 403, code: 'denied_by_policy' });
  });

  it('sums aggregate bounds over the tenant’s real proposals, exactly as intake then does', async () => {
    await refund(seeded.acme, 5000);
    const [entry] = (await currentPolicies(t.db, 'acme')).filter((view) => view.action === 'issue_refund');
    const preview = await previewPolicy(t.db, systems.client, 'acme', {
      action: 'issue_refund',
      rules: entry!.rules,
      expiryHours: entry!.expiryHours,
      sample: { args: { orderId: 'ord_1843', amountMinor: 6000, currency: 'EUR', reason: 'Partial refund' } },
    });
    expect(preview).toMatchObject({
      usesAggregates: true,
      routing: {
        rule: 'refunds-over-100',
        approvals: 2,
        policyVersion: 2,
        aggregate: { priorCount: 1, priorSum: 5000, total: 11000 },
      },
    });
    const admitted = await refund(seeded.acme, 6000);
    expect(admitted.proposal.routing).toEqual(preview.routing);
  });

  it('refuses a sample that breaks the contract, names no resource of the tenant, or a draft that does not validate', async () => {
    const base = { action: 'hold_stock', rules: [oneApprover], expiryHours: 24 };
    const bad = await expectApiError(
      previewPolicy(t.db, systems.client, 'acme', { ...base, sample: { args: { sku: 'filter-blue', quantity: '2' } } }),
      { status: 422, code: 'invalid_sample' },
    );
    expect(bad.details.issues).toContainEqual(
      expect.objectContaining({ field: 'sample.args.quantity', code: 'invalid_type' }),
    );
    await expectApiError(
      previewPolicy(t.db, systems.client, 'acme', { ...base, sample: { args: { sku: 'filter-green', quantity: 1 } } }),
      { status: 422, code: 'sample_not_found' },
    );
    const rules = await expectApiError(
      previewPolicy(t.db, systems.client, 'acme', {
        ...base,
        rules: [{ ...oneApprover, approvals: 9 }],
        sample: { args: { sku: 'filter-blue', quantity: 1 } },
      }),
      { status: 422, code: 'invalid_preview' },
    );
    expect(rules.details.issues).toContainEqual(expect.objectContaining({ field: 'rules.0.approvals' }));
  });
});

describe('PUT: the change note', () => {
  it('stores the note exactly as sent (never trimmed), up to 500 characters', async () => {
    const note = `  ${'n'.repeat(496)} \n`;
    const document = await holdDocument((entry) => void (entry.expiryHours = 23));
    const result = await savePolicies(t.db, 'acme', carol(), { ...document, note });
    expect(holdOf(result.policies).note).toBe(note);
    const back = await holdDocument((entry) => void (entry.expiryHours = 24));
    expect(holdOf((await savePolicies(t.db, 'acme', carol(), back)).policies)).toMatchObject({
      expiryHours: 24,
      note: NOTE,
    });
  });
});
