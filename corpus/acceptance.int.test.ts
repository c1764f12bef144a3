/**
 * The acceptance tests of "Valid JSON Is Not a Valid Tool Call" (the input of docs/design.md §3 and §4),
 * table-driven: each refused candidate goes through the real path (envelope limits, then the
 * gates, with the seeded keys and the demo systems of record) and through the permissive
 * baseline. The gates refuse it with the expected status, kind, code and field, record the
 * attempt and create nothing; the baseline accepts the identical bytes — the contrast.
 */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeAttempts, proposals } from '@/db/schema';
import { skuRecord } from '@/lib/actions/hold_stock/adapter';
import { createAgentKey } from '@/lib/admin/accounts';
import { createTestDatabase, type TestDatabase } from '@/test/db';
import { type BaselineVerdict, baselineValidate } from './baseline';
import { type GateVerdict, sendToGates } from './run';
import { type CorpusWorld, openCorpusWorld, type Tenant } from './world';

let database: TestDatabase;
let world: CorpusWorld;

beforeAll(async () => {
  database = await createTestDatabase();
  world = await openCorpusWorld({ db: database.db });
});

afterAll(async () => {
  await world?.close();
  await database?.dispose();
});

type Accepted = Extract<BaselineVerdict, { accepted: true }>;
type Refusal = { status: number; kind: string; code: string; field?: string; issue?: string; fields?: string[] };
type Row = {
  name: string;
  agent?: Tenant;
  args?: Record<string, unknown>;
  action?: 'hold_stock' | 'issue_refund';
  /** Fields beside args in the envelope (overrides). */
  envelope?: Record<string, unknown>;
  expected: Refusal;
  /** What the baseline did with it, beyond accepting it. */
  baseline?: (verdict: Accepted) => void;
};

let sequence = 0;
function envelopeOf(row: Row) {
  sequence++;
  return {
    requestId: `acceptance.${sequence}`,
    action: row.action ?? 'hold_stock',
    contractVersion: 1,
    args: row.args,
    ...row.envelope,
  };
}

const invalidType = (field: string): Refusal => ({
  status: 422,
  kind: 'schema',
  code: 'contract_violation',
  field,
  issue: 'invalid_type',
});
const unknownField = (field: string): Refusal => ({
  status: 422,
  kind: 'schema',
  code: 'contract_violation',
  field,
  issue: 'unknown_field',
});
const issue = (field: string, code: string): Refusal => ({
  status: 422,
  kind: 'schema',
  code: 'contract_violation',
  field,
  issue: code,
});
const notAuthorized: Refusal = { status: 403, kind: 'authorization', code: 'not_authorized' };
const businessRule = (code: string): Refusal => ({ status: 422, kind: 'business_rule', code });

const blue = (quantity: unknown, more: Record<string, unknown> = {}) => ({ sku: 'filter-blue', quantity, ...more });
const refund = (more: Record<string, unknown> = {}) => ({
  orderId: 'ord_1842',
  amountMinor: 1000,
  currency: 'USD',
  reason: 'Customer requested a refund',
  ...more,
});

const HOLD_ROWS: Row[] = [
  {
    name: 'a Boolean quantity',
    args: blue(true),
    expected: invalidType('quantity'),
    baseline: (v) => expect(v.args.quantity).toBe(1),
  },
  {
    name: 'a false quantity',
    args: blue(false),
    expected: invalidType('quantity'),
    baseline: (v) => expect(v.args.quantity).toBe(0),
  },
  {
    name: 'an extra warehouse field',
    args: blue(2, { warehouse: 'south' }),
    expected: unknownField('warehouse'),
    baseline: (v) => expect(v.forwarded.warehouse).toBe('south'),
  },
  {
    name: 'a numeric-string quantity',
    args: blue('2'),
    expected: invalidType('quantity'),
    baseline: (v) => expect(v.args.quantity).toBe(2),
  },
  { name: 'a zero quantity', args: blue(0), expected: issue('quantity', 'too_small') },
  { name: 'a negative quantity', args: blue(-3), expected: issue('quantity', 'too_small') },
  {
    name: 'a quantity above the contract limit (never clamped)',
    args: blue(5),
    expected: issue('quantity', 'too_big'),
    baseline: (v) => expect(v.args.quantity).toBe(5),
  },
  {
    name: 'a quantity above the record max_hold',
    args: { sku: 'filter-gray', quantity: 3 },
    expected: businessRule('hold_limit'),
  },
  { name: 'a float quantity', args: blue(2.5), expected: invalidType('quantity') },
  {
    name: 'a nested tenant override',
    args: blue(2, { meta: { tenantId: 'globex' } }),
    expected: unknownField('meta'),
    baseline: (v) => expect(v.forwarded.meta).toEqual({ tenantId: 'globex' }),
  },
  { name: 'an args-level tenantId', args: blue(2, { tenantId: 'globex' }), expected: unknownField('tenantId') },
  { name: 'a top-level tenantId', args: blue(2), envelope: { tenantId: 'globex' }, expected: unknownField('tenantId') },
  {
    name: 'a top-level approved flag',
    args: blue(2),
    envelope: { approved: true },
    expected: unknownField('approved'),
  },
  {
    name: 'a top-level actor',
    args: blue(2),
    envelope: { actor: { id: 'usr_admin', role: 'admin' } },
    expected: unknownField('actor'),
  },
  {
    name: 'the admin flag ticket_message_74 asks for',
    args: blue(2),
    envelope: { admin: true },
    expected: unknownField('admin'),
  },
  { name: "another tenant's SKU", args: { sku: 'filter-green', quantity: 1 }, expected: notAuthorized },
  {
    name: 'a SKU in a warehouse the key may not use',
    args: { sku: 'filter-red', quantity: 1 },
    expected: notAuthorized,
  },
  {
    // Authority does not depend on the business rules (the seed checks the warehouse before max_hold):
    // a key without the south warehouse learns nothing about filter-red, its max_hold included.
    name: 'a SKU in a warehouse the key may not use, above that SKU’s max_hold',
    args: { sku: 'filter-red', quantity: 3 },
    expected: notAuthorized,
  },
  { name: 'a SKU that does not exist', args: { sku: 'filter-purple', quantity: 1 }, expected: notAuthorized },
  {
    name: "another tenant's evidence",
    args: blue(1),
    envelope: { evidenceRefs: ['ticket_message_90'] },
    expected: notAuthorized,
  },
  { name: 'the globex key on an acme SKU', agent: 'globex', args: blue(1), expected: notAuthorized },
];

const REFUND_ROWS: Row[] = [
  {
    name: 'a currency other than the order’s',
    args: refund({ currency: 'EUR' }),
    expected: businessRule('currency_mismatch'),
  },
  {
    name: 'an amount over the refundable balance',
    args: refund({ amountMinor: 5000 }),
    expected: businessRule('exceeds_refundable_balance'),
  },
  {
    name: 'an orderId of the wrong pattern',
    args: refund({ orderId: 'order-1842' }),
    expected: issue('orderId', 'invalid_format'),
  },
  {
    name: 'full-width digits in the orderId',
    args: refund({ orderId: 'ord_１８４２' }),
    expected: issue('orderId', 'invalid_format'),
  },
  { name: 'a lower-case currency', args: refund({ currency: 'usd' }), expected: issue('currency', 'invalid_value') },
  {
    name: 'a Cyrillic look-alike in the currency',
    args: refund({ currency: 'UЅD' }),
    expected: issue('currency', 'invalid_value'),
  },
  { name: 'a float amount', args: refund({ amountMinor: 49.99 }), expected: invalidType('amountMinor') },
  {
    name: 'a numeric-string amount',
    args: refund({ amountMinor: '1000' }),
    expected: invalidType('amountMinor'),
    baseline: (v) => expect(v.args.amountMinor).toBe(1000),
  },
  { name: 'a negative amount', args: refund({ amountMinor: -1000 }), expected: issue('amountMinor', 'too_small') },
  { name: 'a nested tenant override', args: refund({ meta: { tenantId: 'globex' } }), expected: unknownField('meta') },
  {
    name: 'a top-level approved flag',
    args: refund(),
    envelope: { approved: true },
    expected: unknownField('approved'),
  },
  { name: "another tenant's order", args: refund({ orderId: 'ord_9001' }), expected: notAuthorized },
  {
    name: "another tenant's order, over any balance",
    args: refund({ orderId: 'ord_9001', amountMinor: 99_999_999 }),
    expected: notAuthorized,
  },
  { name: 'an order that does not exist', args: refund({ orderId: 'ord_4040' }), expected: notAuthorized },
  {
    name: "another tenant's evidence",
    args: refund(),
    envelope: { evidenceRefs: ['ticket_message_90'] },
    expected: notAuthorized,
  },
  { name: 'the globex key on an acme order', agent: 'globex', args: refund(), expected: notAuthorized },
];

async function proposalCount(): Promise<number> {
  const [row] = await world.db.select({ n: count() }).from(proposals);
  return Number(row?.n ?? 0);
}

function expectRefusal(verdict: GateVerdict, expected: Refusal) {
  expect(
    verdict.outcome,
    JSON.stringify(
      verdict.outcome === 'rejected' ? { status: verdict.status, code: verdict.code, issues: verdict.issues } : verdict,
    ),
  ).toBe('rejected');
  if (verdict.outcome !== 'rejected') return;
  expect({ status: verdict.status, kind: verdict.kind, code: verdict.code }).toEqual({
    status: expected.status,
    kind: expected.kind,
    code: expected.code,
  });
  const fields = [...new Set(verdict.issues.map((i) => i.field))].sort();
  if (expected.field) {
    expect(fields).toEqual([expected.field]);
    if (expected.issue) expect(verdict.issues).toContainEqual({ field: expected.field, code: expected.issue });
  } else if (expected.fields) {
    expect(fields).toEqual([...expected.fields].sort());
  } else {
    expect(verdict.issues).toEqual([]);
  }
}

describe.each([
  ['hold_stock', HOLD_ROWS],
  ['issue_refund', REFUND_ROWS.map((row) => ({ ...row, action: 'issue_refund' as const }))],
])('%s: the gates refuse what the baseline accepts', (_action, rows) => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const envelope = envelopeOf(row);
    const text = JSON.stringify(envelope);
    const before = await proposalCount();

    const verdict = await sendToGates(world, world.keys[row.agent ?? 'acme'], text);
    expectRefusal(verdict, row.expected);
    // Refused without a trace of an intent: no proposal, but the attempt is recorded with its reason.
    expect(await proposalCount()).toBe(before);
    const attempts = await world.db
      .select({
        outcome: intakeAttempts.outcome,
        errorCode: intakeAttempts.errorCode,
        httpStatus: intakeAttempts.httpStatus,
      })
      .from(intakeAttempts)
      .where(eq(intakeAttempts.requestId, envelope.requestId));
    expect(attempts).toEqual([{ outcome: 'rejected', errorCode: row.expected.code, httpStatus: row.expected.status }]);

    // The contrast: the same bytes are a "valid tool call" to the permissive baseline.
    const baseline = baselineValidate(text);
    expect(baseline, `the baseline refused it: ${JSON.stringify(baseline)}`).toMatchObject({ accepted: true });
    if (baseline.accepted && row.baseline) row.baseline(baseline);
  });
});

describe('valid candidates: both accept', () => {
  it('holds 2 × filter-blue with exactly the expected payload and the warehouse chosen by the catalog', async () => {
    const envelope = {
      requestId: 'acceptance.valid.hold',
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 2 },
    };
    const text = JSON.stringify(envelope);
    const verdict = await sendToGates(world, world.keys.acme, text);
    expect(verdict).toMatchObject({ outcome: 'accepted', status: 201 });
    const [row] = await world.db.select().from(proposals).where(eq(proposals.requestId, envelope.requestId));
    expect(row?.payload).toEqual({
      action: 'hold_stock',
      contractVersion: 1,
      tenantId: 'acme',
      args: { sku: 'filter-blue', quantity: 2 },
      evidenceRefs: [],
    });
    expect(row?.facts).toMatchObject({ warehouse: 'north' });
    expect(row?.status).toBe('pending_approval');
    // Intake records an intent to decide on; nothing is held in the system of record.
    const record = await world.systems.client.read('/skus/filter-blue', skuRecord, 'inventory');
    expect(record?.holds).toEqual([]);

    const baseline = baselineValidate(text);
    expect(baseline).toMatchObject({
      accepted: true,
      args: { sku: 'filter-blue', quantity: 2 },
      forwarded: { warehouse: 'north', sku: 'filter-blue', quantity: 2 },
    });
  });

  it.each([
    ['a globex hold', 'globex', { action: 'hold_stock', args: { sku: 'filter-green', quantity: 4 } }],
    [
      'a refund of the full balance with evidence',
      'acme',
      {
        action: 'issue_refund',
        args: { orderId: 'ord_1842', amountMinor: 4999, currency: 'USD', reason: 'Customer requested a full refund' },
        evidenceRefs: ['ticket_message_73'],
      },
    ],
    [
      'a refund in EUR',
      'acme',
      {
        action: 'issue_refund',
        args: { orderId: 'ord_1843', amountMinor: 58_000, currency: 'EUR', reason: 'Returned in full' },
      },
    ],
    [
      'a globex refund',
      'globex',
      {
        action: 'issue_refund',
        args: { orderId: 'ord_9001', amountMinor: 12_345, currency: 'USD', reason: 'Damaged' },
        evidenceRefs: ['ticket_message_90'],
      },
    ],
  ] as const)('%s', async (name, tenant, body) => {
    const envelope = { requestId: `acceptance.valid.${name.replaceAll(' ', '-')}`, contractVersion: 1, ...body };
    const text = JSON.stringify(envelope);
    const verdict = await sendToGates(world, world.keys[tenant], text);
    expect(verdict).toMatchObject({ outcome: 'accepted', status: 201 });
    const [row] = await world.db.select().from(proposals).where(eq(proposals.requestId, envelope.requestId));
    expect(row?.payload).toEqual({
      action: body.action,
      contractVersion: 1,
      tenantId: tenant,
      args: body.args,
      evidenceRefs: 'evidenceRefs' in body ? body.evidenceRefs : [],
    });
    expect(baselineValidate(text)).toMatchObject({ accepted: true, args: body.args });
    await world.settle(row ? [row.id] : []);
  });
});

describe('refusals the baseline has no notion of', () => {
  it('refuses an action the key may not use (action_not_allowed), whatever the arguments', async () => {
    const { key } = await createAgentKey(world.db, {
      tenantId: 'acme',
      agentName: 'hold-only-bot',
      actions: ['hold_stock'],
      grants: { warehouses: ['north'] },
    });
    const text = JSON.stringify({
      requestId: 'acceptance.not-allowed',
      action: 'issue_refund',
      contractVersion: 1,
      args: refund(),
    });
    const verdict = await sendToGates(world, key, text);
    expectRefusal(verdict, { status: 403, kind: 'authorization', code: 'action_not_allowed' });
    expect(baselineValidate(text)).toMatchObject({ accepted: true });
  });

  it.each([
    [
      'a reason (valid by its length)',
      {
        requestId: 'acceptance.nul.1',
        action: 'issue_refund',
        contractVersion: 1,
        args: refund({ reason: 'refund\u0000please' }),
      },
      true,
    ],
    [
      'an unknown argument key',
      { requestId: 'acceptance.nul.2', action: 'hold_stock', contractVersion: 1, args: blue(2, { 'x\u0000': 1 }) },
      true,
    ],
    [
      'the requestId',
      { requestId: 'acceptance.nul\u0000.3', action: 'hold_stock', contractVersion: 1, args: blue(2) },
      true,
    ],
    // The baseline does not know this action either; it refuses it for that reason only.
    [
      'the action',
      { requestId: 'acceptance.nul.4', action: 'hold_stock\u0000', contractVersion: 1, args: blue(2) },
      false,
    ],
  ] as const)(
    'refuses U+0000 in %s at the envelope (PostgreSQL cannot store it), never with a 500',
    async (_where, body, baselineAccepts) => {
      const text = JSON.stringify(body);
      const before = await proposalCount();
      const verdict = await sendToGates(world, world.keys.acme, text);
      expect(verdict.outcome === 'crashed' ? verdict.message : verdict.outcome).toBe('rejected');
      expectRefusal(verdict, { status: 400, kind: 'malformed', code: 'nul_character' });
      expect(await proposalCount()).toBe(before);
      expect(baselineValidate(text).accepted).toBe(baselineAccepts);
    },
  );
});
