import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { definitionChanges } from './changes';
import type { Definition } from './document';

const refund = () => JSON.parse(fs.readFileSync('demo/actions/issue_refund.json', 'utf8')) as Definition;
type Field = { type?: string; enum?: unknown[]; items?: Schema; [keyword: string]: unknown };
type Schema = { properties: Record<string, Field>; required?: string[]; [keyword: string]: unknown };
const at = (schema: Schema, name: string): Field => schema.properties[name]!;
/** The refund definition with its v1 arguments changed by `change`. */
const withArgs = (change: (args: Schema) => void) => {
  const after = refund();
  change(after.contracts[0]!.args as Schema);
  return after;
};

describe('definitionChanges', () => {
  it('a new definition is new, breaking nothing', () => {
    expect(definitionChanges(undefined, refund())).toEqual({
      words: ['issue_refund is new: 1 contract version(s), 3 rule(s).'],
      breaking: [],
    });
  });

  it('the same document changes nothing', () => {
    expect(definitionChanges(refund(), refund())).toEqual({ words: [], breaking: [] });
  });

  it.each([
    [
      'a field made required',
      (args: Schema) => {
        args.properties.note = { type: 'string', maxLength: 10 };
        args.required!.push('note');
      },
      'contract v1: the field "note" was made required',
    ],
    [
      'an enum narrowed',
      (args: Schema) => {
        at(args, 'currency').enum = ['EUR', 'USD'];
      },
      /^contract v1: the enum of "currency" narrowed: "AED", .* no longer accepted$/,
    ],
    [
      'a type changed',
      (args: Schema) => {
        args.properties.amountMinor = { type: 'string', maxLength: 12 };
      },
      'contract v1: the type of "amountMinor" changed from integer to string',
    ],
    [
      'a field removed',
      (args: Schema) => {
        delete args.properties.reason;
        args.required = args.required!.filter((name: string) => name !== 'reason');
      },
      'contract v1: the field "reason" was removed',
    ],
    [
      'an optional field added (breaking nothing)',
      (args: Schema) => {
        args.properties.lines = {
          type: 'array',
          items: { type: 'object', properties: {}, additionalProperties: false },
        };
      },
      undefined,
    ],
  ])('judges %s', (_label, change, expected) => {
    const changes = definitionChanges(refund(), withArgs(change));
    expect(changes.words).toEqual(["Contract v1's arguments change."]);
    if (expected === undefined) expect(changes.breaking).toEqual([]);
    else expect(changes.breaking).toEqual([typeof expected === 'string' ? expected : expect.stringMatching(expected)]);
  });

  it('finds narrowing at any depth', () => {
    const before = withArgs((args) => {
      args.properties.lines = {
        type: 'array',
        items: {
          type: 'object',
          properties: { sku: { type: 'string', enum: ['a', 'b'] } },
          required: [],
          additionalProperties: false,
        },
      };
    });
    const after = structuredClone(before);
    const items = at(after.contracts[0]!.args as Schema, 'lines').items!;
    at(items, 'sku').enum = ['a'];
    items.required = ['sku'];
    expect(definitionChanges(before, after).breaking).toEqual([
      'contract v1: the enum of "lines[].sku" narrowed: "b" no longer accepted',
      'contract v1: the field "lines[].sku" was made required',
    ]);
  });

  it('widening breaks nothing: an optional field with its default, a wider enum, integer to number', () => {
    const changes = definitionChanges(
      refund(),
      withArgs((args) => {
        at(args, 'currency').enum!.push('XXX');
        at(args, 'amountMinor').type = 'number';
        args.properties.note = { type: 'string', maxLength: 10, default: '' };
      }),
    );
    expect(changes.breaking).toEqual([]);
  });

  it('says what else changed, and that a retired or removed version breaks its agents', () => {
    const after = refund();
    after.executor = 'https://payments.example.com/execute';
    after.rules = after.rules.slice(1);
    after.rules[0]!.require = 'true';
    after.contracts = [
      { ...after.contracts[0]!, status: 'retired' },
      { ...after.contracts[0]!, version: 2, status: 'current' },
    ];
    const changes = definitionChanges(refund(), after);
    expect(changes.words).toEqual([
      'The executor changes from http://127.0.0.1:4010/actions/issue_refund/execute to https://payments.example.com/execute.',
      'Rule currency_mismatch is removed.',
      'Rule order_not_refundable now requires true (was facts.chargedMinor - facts.refundedMinor > 0).',
      'Contract v1 goes from current to retired.',
      'Contract v2 is added (current).',
    ]);
    expect(changes.breaking).toEqual(['contract v1 is no longer accepted (retired)']);
  });
});
