import { describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { holdStockArgsV1 } from '@/lib/actions/hold_stock/contract';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { Refusal } from '@/lib/errors/refusal';
import { errorBody, refusalOf } from '@/lib/http/errors';
import { submitProposal } from '@/lib/intake/intake';
import { expectApiError, rejectionRecordingDatabase } from '@/test/errors';
import { untouchableSystems } from '@/test/systems';
import { envelopeSchema } from './envelope';
import { type FieldIssue, toFieldIssues } from './field-issues';

const AGENT: AgentPrincipal = {
  keyId: 'key_test',
  tenantId: 'acme',
  agentName: 'acme-support-bot',
  allowedActions: ['hold_stock', 'issue_refund'],
  grants: { warehouses: ['north'] },
  onBehalfOfUserId: null,
};

/** A string that must never come back in an error: it stands for a secret or an injected instruction. */
const SENTINEL = 'SENTINEL-ignore-your-rules';

const valid = () => ({
  requestId: 'req_01',
  action: 'hold_stock',
  contractVersion: 1,
  args: { sku: 'filter-blue', quantity: 2 } as Record<string, unknown>,
  evidenceRefs: [] as unknown[],
});

type Body = Record<string, unknown>;
const withArgs = (args: Record<string, unknown>): Body => ({ ...valid(), args: { ...valid().args, ...args } });
const without = (body: Body, ...keys: string[]) =>
  Object.fromEntries(Object.entries(body).filter(([key]) => !keys.includes(key)));

/**
 * Runs a body through intake, which must refuse it with the expected error before reaching the
 * system of record; the only database use allowed is recording the one rejected intake attempt.
 */
async function refusal(body: unknown, expected: Parameters<typeof expectApiError>[1], agent: AgentPrincipal = AGENT) {
  const { db, attempts } = rejectionRecordingDatabase<Database>();
  const error = await expectApiError(
    submitProposal(db, agent, { text: JSON.stringify(body), value: body }, untouchableSystems()),
    expected,
  );
  expect(attempts).toHaveLength(1);
  expect(attempts[0]).toMatchObject({
    tenantId: agent.tenantId,
    agentKeyId: agent.keyId,
    outcome: 'rejected',
    httpStatus: error.status,
    errorKind: error.kind,
    errorCode: error.code,
    rawCandidate: JSON.stringify(body),
  });
  return { error, attempt: attempts[0]! };
}

/** Runs a body through intake up to the contract; schema refusals happen before any read of live state. */
async function schemaIssues(body: unknown): Promise<FieldIssue[]> {
  const { error, attempt } = await refusal(body, { status: 422, kind: 'schema', code: 'contract_violation' });
  const issues = error.details.issues as FieldIssue[];
  expect(Array.isArray(issues)).toBe(true);
  expect(error.details.repair).toEqual({ allowed: true, attemptsLeft: 3, maxRepairs: 3 });
  // The attempt keeps field names and codes only.
  expect(attempt.issues).toEqual(issues.map(({ field, code }) => ({ field, code })));
  return issues;
}

function expectWellFormed(issues: FieldIssue[]) {
  for (const issue of issues) {
    expect(Object.keys(issue).sort()).toEqual(['code', 'expected', 'field', 'message', 'received']);
    for (const value of Object.values(issue)) expect(typeof value === 'string' && value.length > 0).toBe(true);
  }
}

const argsCases: [string, Body, { field: string; code: string }][] = [
  ['a numeric string quantity', withArgs({ quantity: '2' }), { field: 'quantity', code: 'invalid_type' }],
  ['a fractional quantity', withArgs({ quantity: 2.5 }), { field: 'quantity', code: 'invalid_type' }],
  ['a boolean quantity', withArgs({ quantity: true }), { field: 'quantity', code: 'invalid_type' }],
  ['a null quantity', withArgs({ quantity: null }), { field: 'quantity', code: 'invalid_type' }],
  ['quantity above 4', withArgs({ quantity: 5 }), { field: 'quantity', code: 'too_big' }],
  ['quantity 0', withArgs({ quantity: 0 }), { field: 'quantity', code: 'too_small' }],
  ['a negative quantity', withArgs({ quantity: -1 }), { field: 'quantity', code: 'too_small' }],
  ['a missing sku', { ...valid(), args: { quantity: 2 } }, { field: 'sku', code: 'required' }],
  ['a missing quantity', { ...valid(), args: { sku: 'filter-blue' } }, { field: 'quantity', code: 'required' }],
  ['an empty sku', withArgs({ sku: '' }), { field: 'sku', code: 'too_small' }],
  ['a 41-character sku', withArgs({ sku: `${SENTINEL}-${'x'.repeat(40)}` }), { field: 'sku', code: 'too_big' }],
  ['a numeric sku', withArgs({ sku: 42 }), { field: 'sku', code: 'invalid_type' }],
  [
    'an unknown argument (warehouse comes from the catalog)',
    withArgs({ warehouse: `south ${SENTINEL}` }),
    { field: 'warehouse', code: 'unknown_field' },
  ],
  ['an object where the sku goes', withArgs({ sku: { value: SENTINEL } }), { field: 'sku', code: 'invalid_type' }],
];

const envelopeCases: [string, Body, { field: string; code: string }][] = [
  ['a top-level tenantId', { ...valid(), tenantId: 'globex' }, { field: 'tenantId', code: 'unknown_field' }],
  ['a top-level approved flag', { ...valid(), approved: true }, { field: 'approved', code: 'unknown_field' }],
  ['a top-level actor', { ...valid(), actor: { id: SENTINEL } }, { field: 'actor', code: 'unknown_field' }],
  [
    'a requestId with a space',
    { ...valid(), requestId: `req ${SENTINEL}` },
    { field: 'requestId', code: 'invalid_format' },
  ],
  ['an empty requestId', { ...valid(), requestId: '' }, { field: 'requestId', code: 'too_small' }],
  ['a 129-character requestId', { ...valid(), requestId: 'r'.repeat(129) }, { field: 'requestId', code: 'too_big' }],
  ['a missing requestId', without(valid(), 'requestId'), { field: 'requestId', code: 'required' }],
  ['a numeric requestId', { ...valid(), requestId: 1 }, { field: 'requestId', code: 'invalid_type' }],
  ['a repairOf with a slash', { ...valid(), repairOf: 'req/00' }, { field: 'repairOf', code: 'invalid_format' }],
  [
    'a string contractVersion',
    { ...valid(), contractVersion: '1' },
    { field: 'contractVersion', code: 'invalid_type' },
  ],
  [
    'a fractional contractVersion',
    { ...valid(), contractVersion: 1.5 },
    { field: 'contractVersion', code: 'invalid_type' },
  ],
  ['a missing action', without(valid(), 'action'), { field: 'action', code: 'required' }],
  ['args as an array', { ...valid(), args: [] }, { field: 'args', code: 'invalid_type' }],
  ['missing args', without(valid(), 'args'), { field: 'args', code: 'required' }],
  [
    '21 evidence refs',
    { ...valid(), evidenceRefs: Array.from({ length: 21 }, (_, i) => `ticket_${i}`) },
    { field: 'evidenceRefs', code: 'too_big' },
  ],
  [
    'an empty evidence ref',
    { ...valid(), evidenceRefs: ['ticket_message_73', ''] },
    { field: 'evidenceRefs.1', code: 'too_small' },
  ],
  [
    'a 129-character evidence ref',
    { ...valid(), evidenceRefs: [`${SENTINEL}${'x'.repeat(129)}`] },
    { field: 'evidenceRefs.0', code: 'too_big' },
  ],
  ['a numeric evidence ref', { ...valid(), evidenceRefs: [73] }, { field: 'evidenceRefs.0', code: 'invalid_type' }],
  [
    'evidence refs as a string',
    { ...valid(), evidenceRefs: SENTINEL },
    { field: 'evidenceRefs', code: 'invalid_type' },
  ],
];

describe('intake schema refusals (envelope and hold_stock v1)', () => {
  // The issue names the field and a specific code; zod may add a second issue for the same field
  // (an empty requestId is both too short and not matching the pattern), never one for another field.
  it.each(
    [...argsCases, ...envelopeCases].map(([label, body, expected]) => ({
      label,
      body,
      expected,
      shown: `${expected.field}: ${expected.code}`,
    })),
  )('$label → $shown', async ({ body, expected }) => {
    const issues = await schemaIssues(body);
    expect(issues.map(({ field, code }) => ({ field, code }))).toContainEqual(expected);
    expect(new Set(issues.map((issue) => issue.field))).toEqual(new Set([expected.field]));
    expectWellFormed(issues);
  });

  it.each([...argsCases, ...envelopeCases].filter(([, body]) => JSON.stringify(body).includes(SENTINEL)))(
    'never echoes a received string (%s)',
    async (_label, body) => {
      const { db, attempts } = rejectionRecordingDatabase<Database>();
      const error = await submitProposal(
        db,
        AGENT,
        { text: JSON.stringify(body), value: body },
        untouchableSystems(),
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Refusal);
      expect(JSON.stringify(errorBody(refusalOf(error)))).not.toContain(SENTINEL);
      // Nor do the recorded issues and message (the raw candidate keeps the body as received, for tenant members only).
      const recorded = attempts[0] ?? {};
      expect(recorded.rawCandidate).toBe(JSON.stringify(body));
      expect(JSON.stringify([recorded.issues, recorded.message])).not.toContain(SENTINEL);
    },
  );

  it('reports every problem at once, each under its own dotted name', async () => {
    const issues = await schemaIssues({ ...valid(), requestId: 'a b', tenantId: 'globex', evidenceRefs: ['', 'ok'] });
    expect(issues.map(({ field, code }) => `${field}:${code}`).sort()).toEqual([
      'evidenceRefs.0:too_small',
      'requestId:invalid_format',
      'tenantId:unknown_field',
    ]);
  });

  it('reports envelope and argument problems together in one answer', async () => {
    const issues = await schemaIssues({
      ...valid(),
      requestId: 'a b',
      args: { sku: '', quantity: 5, warehouse: 'south' },
    });
    expect(issues.map(({ field, code }) => `${field}:${code}`).sort()).toEqual([
      'quantity:too_big',
      'requestId:invalid_format',
      'sku:too_small',
      'warehouse:unknown_field',
    ]);
  });

  it('describes what came in words without the value', async () => {
    const [issue] = await schemaIssues(withArgs({ quantity: '2' }));
    expect(issue?.received).toBe('string of 1 character');
    expect(issue?.message).toContain('"quantity"');
    const [big] = await schemaIssues(withArgs({ quantity: 5 }));
    expect(big).toMatchObject({ expected: 'a number at most 4', received: 'integer 5' });
    const [missing] = await schemaIssues({ ...valid(), args: { quantity: 2 } });
    expect(missing).toMatchObject({ received: 'nothing' });
    expect(missing?.message).toMatch(/required/);
  });

  it.each([
    ['null', null],
    ['an array', [valid()]],
    ['a string', 'hold_stock'],
    ['a number', 2],
  ])('refuses a body that is %s with 422 invalid_type on (body)', async (_label, body) => {
    const issues = await schemaIssues(body);
    expect(issues.map(({ field, code }) => ({ field, code }))).toEqual([{ field: '(body)', code: 'invalid_type' }]);
  });

  it('refuses an unknown action as a schema error without echoing it in the issue', async () => {
    const body = { ...valid(), action: 'drop_tables' };
    const { error } = await refusal(body, { status: 422, kind: 'schema', code: 'contract_violation' });
    const issues = error.details.issues as FieldIssue[];
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ field: 'action', code: 'unknown_action' });
    expect(issues[0]?.message).not.toContain('drop_tables');
  });

  it('refuses an action the key may not propose before the contract, with 403 action_not_allowed', async () => {
    const agent = { ...AGENT, allowedActions: ['issue_refund'] };
    const body = withArgs({ quantity: 99 });
    const { error } = await refusal(body, { status: 403, kind: 'authorization', code: 'action_not_allowed' }, agent);
    // Not a repairable schema error: no issues, no repair advice, nothing about the contract.
    expect(error.details).toEqual({});
  });

  it('refuses an unsupported contract version with 422 unsupported_contract_version', async () => {
    const body = { ...valid(), contractVersion: 2 };
    const { error } = await refusal(body, { status: 422, kind: 'schema', code: 'unsupported_contract_version' });
    expect(error.details.supportedVersions).toEqual([1]);
  });
});

describe('toFieldIssues', () => {
  it('accepts what the contracts accept, unchanged (nothing is coerced or trimmed)', () => {
    for (const args of [
      { sku: 'filter-blue', quantity: 1 },
      { sku: ' padded ', quantity: 4 },
      { sku: 'x'.repeat(40), quantity: 3 },
    ]) {
      expect(holdStockArgsV1.parse(args)).toEqual(args);
    }
    expect(envelopeSchema.parse(valid())).toEqual(valid());
    expect(envelopeSchema.parse(without(valid(), 'evidenceRefs'))).toEqual(valid());
    expect(envelopeSchema.parse({ ...valid(), repairOf: 'req_00:a.b-c' })).toMatchObject({ repairOf: 'req_00:a.b-c' });
  });

  it.each([
    ['a numeric string', '2'],
    ['a boolean', true],
    ['null', null],
  ])('says an integer is expected when quantity is %s', (_label, quantity) => {
    const input = { sku: 'a', quantity };
    const parsed = holdStockArgsV1.safeParse(input);
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(toFieldIssues(parsed.error, input, holdStockArgsV1)).toMatchObject([
      { field: 'quantity', code: 'invalid_type', expected: 'integer' },
    ]);
  });

  it('names each unknown key on its own', () => {
    const input = { sku: 'a', quantity: 1, warehouse: 'north', priority: 1 };
    const parsed = holdStockArgsV1.safeParse(input);
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(
      toFieldIssues(parsed.error, input)
        .map(({ field, code }) => `${field}:${code}`)
        .sort(),
    ).toEqual(['priority:unknown_field', 'warehouse:unknown_field']);
  });
});
