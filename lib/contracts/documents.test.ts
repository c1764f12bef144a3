import { describe, expect, it } from 'vitest';
import { allActions, findAction } from '@/lib/actions/registry';
import { contractDocuments } from './documents';

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

type Schema = Record<string, unknown>;

/** Every subschema of a JSON Schema with its location, the root included. */
function subschemas(schema: Schema, at = '#'): { at: string; schema: Schema }[] {
  const found = [{ at, schema }];
  const visit = (value: unknown, where: string) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      found.push(...subschemas(value as Schema, where));
  };
  for (const keyword of ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']) {
    const map = schema[keyword];
    if (map && typeof map === 'object')
      for (const [name, value] of Object.entries(map)) visit(value, `${at}/${keyword}/${name}`);
  }
  for (const keyword of [
    'items',
    'additionalProperties',
    'unevaluatedProperties',
    'propertyNames',
    'contains',
    'not',
    'if',
    'then',
    'else',
  ]) {
    visit(schema[keyword], `${at}/${keyword}`);
  }
  for (const keyword of ['prefixItems', 'anyOf', 'oneOf', 'allOf']) {
    const list = schema[keyword];
    if (Array.isArray(list)) list.forEach((value, index) => visit(value, `${at}/${keyword}/${index}`));
  }
  return found;
}

const isObjectSchema = (schema: Schema) => schema.type === 'object' || 'properties' in schema;

const documents = contractDocuments();
const versions = documents.actions.flatMap((action) =>
  action.versions.flatMap((version) =>
    (['input', 'output'] as const).map((io) => ({
      label: `${action.action} v${version.version} ${io}`,
      schema: version[io] as Schema,
    })),
  ),
);

describe('contractDocuments (GET /api/v1/contracts)', () => {
  it('lists every registered action with every contract version and its status', () => {
    expect(documents.actions.map((action) => action.action).sort()).toEqual(['hold_stock', 'issue_refund']);
    for (const action of allActions()) {
      const document = documents.actions.find((candidate) => candidate.action === action.name);
      expect(document).toMatchObject({ scope: action.scope, title: action.title });
      expect(document?.versions.map(({ version, status }) => ({ version, status }))).toEqual(
        action.contracts.map(({ version, status }) => ({ version, status })),
      );
    }
  });

  it('gives every version an input and an output schema, each declaring JSON Schema draft 2020-12', () => {
    expect(versions.length).toBeGreaterThanOrEqual(4);
    for (const { label, schema } of versions) {
      expect(schema.$schema, label).toBe(DRAFT_2020_12);
      expect(schema.type, label).toBe('object');
    }
    expect((documents.envelope as Schema).$schema).toBe(DRAFT_2020_12);
  });

  it.each(versions)('closes every object of $label (additionalProperties: false at every level)', ({ schema }) => {
    const objects = subschemas(schema).filter((node) => isObjectSchema(node.schema));
    expect(objects.length).toBeGreaterThan(0);
    for (const node of objects) expect(node.schema.additionalProperties, node.at).toBe(false);
  });

  it.each(versions)('says "integer", never "number", for the numbers of $label', ({ schema }) => {
    for (const node of subschemas(schema)) {
      expect(node.schema.type, node.at).not.toBe('number');
      if (Array.isArray(node.schema.type)) expect(node.schema.type, node.at).not.toContain('number');
    }
  });

  it('types the integer fields of the built-in contracts as integers with their bounds', () => {
    const version = (action: string, io: 'input' | 'output') =>
      documents.actions.find((candidate) => candidate.action === action)?.versions.find((v) => v.version === 1)?.[
        io
      ] as {
        properties: Record<string, Schema>;
        required: string[];
      };
    const hold = version('hold_stock', 'input');
    expect(hold.properties.quantity).toMatchObject({ type: 'integer', minimum: 1, maximum: 4 });
    expect(hold.properties.sku).toMatchObject({ type: 'string', minLength: 1, maxLength: 40 });
    expect(hold.required.sort()).toEqual(['quantity', 'sku']);
    expect(Object.keys(hold.properties).sort()).toEqual(['quantity', 'sku']);

    const refund = version('issue_refund', 'input');
    expect(refund.properties.amountMinor).toMatchObject({ type: 'integer', minimum: 1 });
    expect(refund.properties.orderId).toMatchObject({ type: 'string', pattern: '^ord_[A-Za-z0-9]{1,32}$' });
    expect(refund.properties.reason).toMatchObject({ type: 'string', minLength: 1, maxLength: 500 });
    expect(refund.properties.currency?.enum).toEqual(expect.arrayContaining(['USD', 'EUR']));
    for (const code of refund.properties.currency?.enum as string[]) expect(code).toMatch(/^[A-Z]{3}$/);
    expect(refund.required.sort()).toEqual(['amountMinor', 'currency', 'orderId', 'reason']);

    expect(version('hold_stock', 'output').properties.quantity).toMatchObject({ type: 'integer' });
    expect(version('issue_refund', 'output').properties.amountMinor).toMatchObject({ type: 'integer' });
  });

  it('describes the closed envelope: unknown top-level fields are refused, contractVersion is an integer', () => {
    const envelope = documents.envelope as {
      additionalProperties: unknown;
      properties: Record<string, Schema>;
      required: string[];
    };
    expect(envelope.additionalProperties).toBe(false);
    expect(Object.keys(envelope.properties).sort()).toEqual([
      'action',
      'args',
      'contractVersion',
      'evidenceRefs',
      'repairOf',
      'requestId',
    ]);
    expect(envelope.properties.contractVersion).toMatchObject({ type: 'integer', minimum: 1 });
    expect(envelope.properties.evidenceRefs).toMatchObject({ type: 'array', maxItems: 20 });
    expect(envelope.required.sort()).toEqual(['action', 'args', 'contractVersion', 'requestId']);
  });

  it('is plain JSON (what the route serves is what this returns)', () => {
    expect(JSON.parse(JSON.stringify(documents))).toEqual(documents);
  });
});

describe('the zod sources behind the documents', () => {
  const samples: Record<string, { args: Record<string, unknown>; receipt: Record<string, unknown> }> = {
    hold_stock: {
      args: { sku: 'filter-blue', quantity: 2 },
      receipt: {
        id: 'hold_1',
        sku: 'filter-blue',
        quantity: 2,
        warehouse: 'north',
        idempotencyKey: 'cmd_1',
        createdAt: '2025-01-15T09:00:00.000Z',
      },
    },
    issue_refund: {
      args: { orderId: 'ord_1842', amountMinor: 4999, currency: 'USD', reason: 'Customer requested a full refund' },
      receipt: {
        id: 're_1',
        orderId: 'ord_1842',
        amountMinor: 4999,
        currency: 'USD',
        idempotencyKey: 'cmd_1',
        createdAt: '2025-01-15T09:00:00.000Z',
      },
    },
  };

  it.each(Object.keys(samples))(
    '%s: refuse an unknown key in args and receipt (closed, not stripped), accept the sample unchanged',
    (name) => {
      const action = findAction(name)!;
      const { args, receipt } = samples[name]!;
      for (const contract of action.contracts) {
        expect(contract.check(args)).toEqual({ ok: true, args });
        expect(contract.check({ ...args, extra: 1 }).ok).toBe(false);
      }
      expect(action.output!.parse(receipt)).toEqual(receipt);
      expect(action.output!.safeParse({ ...receipt, extra: 1 }).success).toBe(false);
    },
  );
});
