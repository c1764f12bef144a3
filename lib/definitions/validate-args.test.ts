import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSchema, type Validator } from './validate-args';

const validator = (schema: Record<string, unknown>): Validator => {
  const compiled = compileSchema(schema);
  if ('problem' in compiled) throw new Error(compiled.problem);
  return compiled.validate;
};
const refund = JSON.parse(fs.readFileSync('demo/actions/issue_refund.json', 'utf8')) as {
  contracts: { args: Record<string, unknown> }[];
};
const args = validator(refund.contracts[0]!.args);
const valid = { orderId: 'ord_1', amountMinor: 500, currency: 'EUR', reason: 'Damaged' };

const nested = validator({
  type: 'object',
  properties: {
    lines: {
      type: 'array',
      items: {
        type: 'object',
        properties: { amount: { type: 'integer', minimum: 1 }, sku: { type: 'string', maxLength: 4 } },
        required: ['amount', 'sku'],
        additionalProperties: false,
      },
    },
  },
  required: ['lines'],
  additionalProperties: false,
});

describe('validating arguments never changes them', () => {
  it('accepts valid arguments as they are', () => {
    const value = structuredClone(valid);
    expect(args(value)).toEqual([]);
    expect(value).toEqual(valid);
  });

  it('refuses "5" for an integer: no coercion', () => {
    const value = { ...valid, amountMinor: '500' };
    expect(args(value)).toEqual([
      {
        field: 'amountMinor',
        code: 'invalid_type',
        expected: 'integer',
        received: 'string of 3 characters',
        message: '"amountMinor" must be integer; received string of 3 characters.',
      },
    ]);
    expect(value.amountMinor).toBe('500');
  });

  it('refuses an extra field, naming it, and leaves it in place', () => {
    const value = { ...valid, note: 'hello' };
    expect(args(value)).toEqual([
      {
        field: 'note',
        code: 'unknown_field',
        expected: 'no such field',
        received: 'string of 5 characters',
        message: '"note" is not a field of this contract; remove it.',
      },
    ]);
    expect(value.note).toBe('hello');
  });

  it('fills no default', () => {
    const withDefault = validator({
      type: 'object',
      properties: { mode: { type: 'string', enum: ['a', 'b'], default: 'a' } },
      additionalProperties: false,
    });
    const value = {};
    expect(withDefault(value)).toEqual([]);
    expect(value).toEqual({});
  });

  it('names a missing field with what it wants', () => {
    expect(args({ ...valid, currency: undefined })).toEqual([
      expect.objectContaining({
        field: 'currency',
        code: 'required',
        expected: expect.stringMatching(/^one of 1\d\d allowed values \("AED"/),
      }),
    ]);
  });

  it('names nested fields by their path in words, every problem at once', () => {
    const issues = nested({
      lines: [
        { amount: 1, sku: 'ab' },
        { amount: 0, sku: 'abcdef', colour: 'red' },
      ],
    });
    expect(issues.map(({ field, code, expected }) => ({ field, code, expected }))).toEqual([
      { field: 'lines.1.colour', code: 'unknown_field', expected: 'no such field' },
      { field: 'lines.1.amount', code: 'too_small', expected: 'a number at least 1' },
      { field: 'lines.1.sku', code: 'too_big', expected: 'a string of at most 4 characters' },
    ]);
    expect(nested({ lines: [{ sku: 'a' }] })).toEqual([
      expect.objectContaining({
        field: 'lines.0.amount',
        code: 'required',
        message: '"lines.0.amount" is required: expected integer.',
      }),
    ]);
  });

  it('words patterns and enums as the zod contracts do', () => {
    expect(args({ ...valid, orderId: 'order-1', currency: 'EURO' }).map((issue) => issue.message)).toEqual([
      '"orderId" must be text matching /^ord_[A-Za-z0-9]{1,32}$/; received string of 7 characters.',
      expect.stringMatching(
        /^"currency" must be one of 1\d\d allowed values \("AED", .*, …\); received string of 4 characters\.$/,
      ),
    ]);
  });

  it('says a value outside an enum once, with the allowed values, whatever its type', () => {
    expect(args({ ...valid, currency: 840 }).map(({ field, code }) => ({ field, code }))).toEqual([
      { field: 'currency', code: 'invalid_value' },
    ]);
  });

  it('refuses a schema strict mode cannot enforce', () => {
    expect(compileSchema({ type: 'object', properties: {}, additionalProperties: false, minimumm: 1 })).toEqual({
      problem: expect.stringContaining('unknown keyword: "minimumm"'),
    });
    expect(compileSchema({ type: 'string', format: 'no-such-format' })).toEqual({
      problem: expect.stringContaining('unknown format "no-such-format"'),
    });
  });
});

describe("a tenant's patterns run in time linear in the text", () => {
  // Shapes that backtrack exponentially in a backtracking engine, over atoms each matching "a".
  const ATOMS = ['a', '[a-z]', '\\w', '.', '(?:a)', '[^\\n]'];
  const SHAPES = [
    (atom: string) => `^(${atom}+)+$`,
    (atom: string) => `^(${atom}*)*$`,
    (atom: string) => `^(${atom}|${atom})*$`,
    (atom: string) => `^(${atom}|${atom}${atom})+$`,
    (atom: string) => `^(${atom}+${atom}+)+$`,
    (atom: string) => `^(${atom}?){40}${atom}{40}$`,
  ];
  const text = (length: number) => `${'a'.repeat(length)}\n`;

  it('a catastrophic pattern answers at once, an issue naming the field', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ATOMS),
        fc.constantFrom(...SHAPES),
        fc.integer({ min: 40, max: 20_000 }),
        (atom, shape, length) => {
          const pattern = shape(atom);
          const check = validator({
            type: 'object',
            properties: { name: { type: 'string', pattern } },
            required: ['name'],
            additionalProperties: false,
          });
          expect(check({ name: text(length) })).toEqual([
            expect.objectContaining({ field: 'name', code: 'invalid_format', expected: `text matching /${pattern}/` }),
          ]);
          expect(check({ name: 'a'.repeat(40) })).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('so does a catastrophic property-name pattern', () => {
    const check = validator({
      type: 'object',
      patternProperties: { '^(a+)+$': { type: 'integer' } },
      additionalProperties: false,
    });
    expect(check({ [text(30_000)]: 1 })).toEqual([
      expect.objectContaining({ field: text(30_000), code: 'unknown_field' }),
    ]);
    expect(check({ aaa: 1 })).toEqual([]);
  });

  it.each([
    ['a backreference', '^(a)\\1$', '\\1'],
    ['a lookahead', '^(?=a)a$', '(?='],
    ['a negative lookbehind', '(?<!a)b', '(?<'],
    ['a \\u escape', '^\\u00e9$', '\\u'],
  ])('refuses %s, naming the pattern and the construct', (_what, pattern, construct) => {
    const compiled = compileSchema({ type: 'string', pattern });
    expect(compiled).toEqual({ problem: expect.stringContaining(`the pattern /${pattern}/ cannot run here`) });
    expect('problem' in compiled && compiled.problem).toContain(construct);
  });
});
