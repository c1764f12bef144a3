import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractDocuments } from './documents';
import { type JsonSchema, type LintCode, type LintSeverity, lintArgumentSchema, lintContracts } from './lint';

const published = (schema: z.ZodType) => z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as JsonSchema;
const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});
const bounded = { type: 'string', maxLength: 40 };

type Case = {
  name: string;
  schema: JsonSchema;
  code: LintCode;
  severity: LintSeverity;
  path: string;
  runtimes?: string[];
};

// A seeded bad contract of each kind the issue names, and the other ways a schema fails a model.
const BAD: Case[] = [
  {
    name: 'conditional subschema',
    schema: closed(
      { kind: { enum: ['a', 'b'] }, note: bounded },
      { if: { properties: { kind: { const: 'a' } } }, then: { required: ['note'] } },
    ),
    code: 'conditional',
    severity: 'error',
    path: '(root)',
  },
  {
    name: 'union (zod union)',
    schema: published(
      z.strictObject({
        target: z.union([z.strictObject({ sku: z.string().max(9) }), z.strictObject({ orderId: z.string().max(9) })]),
      }),
    ),
    code: 'union',
    severity: 'warning',
    path: 'target',
  },
  {
    name: 'oneOf union',
    schema: closed({ value: { oneOf: [{ type: 'integer' }, bounded] } }),
    code: 'union',
    severity: 'error',
    path: 'value',
    runtimes: ['openai-strict'],
  },
  {
    name: 'cross-field dependency',
    schema: closed(
      { amount: { type: 'integer', minimum: 1, maximum: 9 }, currency: { type: 'string', enum: ['EUR'] } },
      { dependentRequired: { amount: ['currency'] } },
    ),
    code: 'cross_field',
    severity: 'error',
    path: '(root)',
  },
  {
    name: 'nesting deeper than needed',
    schema: published(z.strictObject({ order: z.strictObject({ line: z.strictObject({ sku: z.string().max(9) }) }) })),
    code: 'nested',
    severity: 'warning',
    path: 'order.line',
  },
  {
    name: 'unbounded string',
    schema: published(z.strictObject({ reason: z.string() })),
    code: 'unbounded_string',
    severity: 'warning',
    path: 'reason',
  },
  {
    name: 'optional field without its default',
    schema: published(z.strictObject({ sku: z.string().max(9), note: z.string().max(9).optional() })),
    code: 'optional_without_default',
    severity: 'error',
    path: 'note',
  },
  {
    name: 'unsatisfiable integer range',
    schema: published(z.strictObject({ quantity: z.int().min(5).max(3) })),
    code: 'unsatisfiable',
    severity: 'error',
    path: 'quantity',
  },
  {
    name: 'unsatisfiable string length',
    schema: published(z.strictObject({ sku: z.string().min(10).max(2) })),
    code: 'unsatisfiable',
    severity: 'error',
    path: 'sku',
  },
  {
    name: 'no integer in range',
    schema: closed({ n: { type: 'integer', minimum: 1.2, maximum: 1.8 } }),
    code: 'unsatisfiable',
    severity: 'error',
    path: 'n',
  },
  {
    name: 'empty enum',
    schema: closed({ kind: { type: 'string', enum: [] } }),
    code: 'unsatisfiable',
    severity: 'error',
    path: 'kind',
  },
  {
    name: 'required but undefined',
    schema: { type: 'object', properties: {}, required: ['sku'], additionalProperties: false },
    code: 'unsatisfiable',
    severity: 'error',
    path: 'sku',
  },
  { name: 'false schema', schema: closed({ never: false }), code: 'unsatisfiable', severity: 'error', path: 'never' },
  {
    name: 'invalid pattern',
    schema: closed({ sku: { type: 'string', pattern: '([a-z' } }),
    code: 'unsatisfiable',
    severity: 'error',
    path: 'sku',
  },
  {
    name: 'open object',
    schema: published(z.object({ sku: z.string().max(9) })),
    code: 'open_object',
    severity: 'error',
    path: '(root)',
  },
  {
    name: 'not an object',
    schema: { type: 'string', maxLength: 9 },
    code: 'root_not_object',
    severity: 'error',
    path: '(root)',
  },
  {
    name: 'negation',
    schema: closed({ sku: { ...bounded, not: { const: 'x' } } }),
    code: 'unsupported_keyword',
    severity: 'error',
    path: 'sku',
  },
  {
    name: 'too large an enum',
    schema: closed({ code: { type: 'string', enum: Array.from({ length: 1001 }, (_, i) => `c${i}`) } }),
    code: 'enum_too_large',
    severity: 'error',
    path: 'code',
    runtimes: ['openai-strict'],
  },
  {
    name: 'dropped length bound',
    schema: published(z.strictObject({ sku: z.string().max(9) })),
    code: 'dropped_keyword',
    severity: 'warning',
    path: 'sku',
    runtimes: ['openai-strict', 'anthropic-strict'],
  },
  {
    name: 'dropped numeric bound',
    schema: published(z.strictObject({ quantity: z.int().min(1).max(4) })),
    code: 'dropped_keyword',
    severity: 'warning',
    path: 'quantity',
    runtimes: ['anthropic-strict'],
  },
  { name: 'untyped field', schema: closed({ anything: {} }), code: 'untyped', severity: 'warning', path: 'anything' },
];

describe('contracts:lint', () => {
  it.each(BAD)('flags $name as $severity $code at $path', ({ schema, code, severity, path, runtimes }) => {
    const findings = lintArgumentSchema(schema);
    const found = findings.find((finding) => finding.code === code && finding.path === path);
    expect(found, JSON.stringify(findings, null, 2)).toBeDefined();
    expect(found!.severity).toBe(severity);
    expect(found!.message.length).toBeGreaterThan(20);
    if (runtimes) expect(found!.runtimes).toEqual(runtimes);
  });

  it('passes a closed, bounded, flat schema with no finding at all', () => {
    const schema = published(
      z.strictObject({ orderId: z.string().regex(/^ord_[a-z0-9]{1,9}$/), currency: z.enum(['EUR', 'USD']) }),
    );
    expect(lintArgumentSchema(schema)).toEqual([]);
  });

  it('lists errors before warnings', () => {
    const findings = lintArgumentSchema(
      published(z.strictObject({ reason: z.string(), quantity: z.int().min(5).max(3) })),
    );
    expect(findings.map((finding) => finding.severity)).toEqual(
      [...findings.map((finding) => finding.severity)].sort(),
    );
    expect(findings[0]!.severity).toBe('error');
  });

  it('passes every shipped contract version with no error', () => {
    const report = lintContracts(contractDocuments());
    expect(report.length).toBeGreaterThanOrEqual(3);
    for (const version of report)
      expect(
        version.findings.filter((finding) => finding.severity === 'error'),
        `${version.action} v${version.version}`,
      ).toEqual([]);
    expect(report.every((version) => version.errors === 0)).toBe(true);
  });
});
