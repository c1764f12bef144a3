import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from './document';

const document = openApiDocument('0.0.0-test');

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toStrictEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has JSON Schema 2020-12 components that compile, with every $ref resolving', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const found of new Set(refs)) {
      const target = JSON.parse(`{${found}}`) as { $ref: string };
      const [, kind, name] = /^#\/components\/(schemas|headers)\/(.+)$/.exec(target.$ref) ?? [];
      expect({
        ref: target.$ref,
        resolves: Boolean(
          kind && name && (document.components[kind as 'schemas' | 'headers'] as Record<string, unknown>)[name!],
        ),
      }).toStrictEqual({ ref: target.$ref, resolves: true });
    }
    for (const name of Object.keys(document.components.schemas)) {
      expect(typeof ajv.getSchema(`openapi.json#/components/schemas/${name}`), name).toBe('function');
    }
  });

  it.each([
    [
      'an error with issues and repair advice',
      'Error',
      {
        error: {
          kind: 'schema',
          code: 'contract_violation',
          message: 'm',
          issues: [{ field: 'quantity', code: 'too_big', expected: 'e', received: 'r', message: 'm' }],
          repair: { allowed: true },
        },
      },
      true,
    ],
    ['an error of an unknown kind', 'Error', { error: { kind: 'oops', code: 'c', message: 'm' } }, false],
    ['an error without its message', 'Error', { error: { kind: 'malformed', code: 'invalid_json' } }, false],
    ['a decision without a payload hash', 'DecisionRequest', { decision: 'approve' }, false],
    [
      'an envelope with an unknown top-level field',
      'ProposalEnvelope',
      { requestId: 'r1', action: 'hold_stock', contractVersion: 1, args: {}, tenantId: 't' },
      false,
    ],
    [
      'an envelope without evidenceRefs (they default to [])',
      'ProposalEnvelope',
      { requestId: 'r1', action: 'hold_stock', contractVersion: 1, args: { sku: 'filter-blue', quantity: 1 } },
      true,
    ],
    [
      "an envelope whose args break its action's contract",
      'ProposalEnvelope',
      { requestId: 'r1', action: 'hold_stock', contractVersion: 1, args: { sku: 'filter-blue', quantity: 9 } },
      false,
    ],
    [
      "an envelope with another action's args",
      'ProposalEnvelope',
      {
        requestId: 'r1',
        action: 'hold_stock',
        contractVersion: 1,
        args: { orderId: 'ord_1', amountMinor: 100, currency: 'USD', reason: 'r' },
      },
      false,
    ],
    [
      'an envelope with args of the version it names (v2: lower-case SKUs only)',
      'ProposalEnvelope',
      { requestId: 'r1', action: 'hold_stock', contractVersion: 2, args: { sku: 'Filter-Blue', quantity: 1 } },
      false,
    ],
    [
      'a refund receipt',
      'Receipt',
      {
        id: 're_1',
        orderId: 'ord_1',
        amountMinor: 100,
        currency: 'USD',
        idempotencyKey: 'k',
        createdAt: '2030-01-01T00:00:00Z',
      },
      true,
    ],
    [
      'a hold receipt',
      'Receipt',
      {
        id: 'hold_1',
        sku: 'filter-blue',
        quantity: 1,
        warehouse: 'north',
        idempotencyKey: 'k',
        createdAt: '2030-01-01T00:00:00Z',
      },
      true,
    ],
    ['a receipt of no action', 'Receipt', { id: 're_1', amountMinor: 100 }, false],
    [
      "an executor's answer with a receipt of no action",
      'ExecutionAnswer',
      { execution: { status: 'succeeded', commandId: 'c', proposalId: 'p', receipt: { ok: true } } },
      false,
    ],
    [
      "an executor's answer with a refund receipt",
      'ExecutionAnswer',
      {
        execution: {
          status: 'succeeded',
          commandId: 'c',
          proposalId: 'p',
          receipt: {
            id: 're_1',
            orderId: 'ord_1',
            amountMinor: 100,
            currency: 'USD',
            idempotencyKey: 'k',
            createdAt: '2030-01-01T00:00:00Z',
          },
        },
      },
      true,
    ],
  ])('judges %s as the handlers do', (_case, component, value, valid) => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'openapi.json', components: document.components });
    const validate = ajv.getSchema(`openapi.json#/components/schemas/${component}`)!;
    expect(validate(value)).toBe(valid);
  });

  it('holds nothing tenant-specific: no ids, keys or addresses of a deployment', () => {
    const text = JSON.stringify(document);
    expect(text).not.toMatch(/cs_agent_|whsec_|sha256:[0-9a-f]{64}|@acme|@globex|localhost|127\.0\.0\.1/);
    expect(document.servers.map(({ url }) => url)).toStrictEqual(['/']);
  });
});
