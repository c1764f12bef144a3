import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baselineValidate } from './baseline';
import { CorpusFormatError, loadCorpus } from './format';

describe('the permissive baseline', () => {
  const hold = (args: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ requestId: 'r', action: 'hold_stock', contractVersion: 1, args, ...extra });

  it('accepts the seed’s escapes: a Boolean quantity becomes 1, an extra warehouse is forwarded over the default', () => {
    expect(baselineValidate(hold({ sku: 'filter-blue', quantity: true }))).toMatchObject({
      accepted: true,
      args: { quantity: 1 },
      forwarded: { warehouse: 'north', quantity: 1 },
    });
    expect(baselineValidate(hold({ sku: 'filter-blue', quantity: 2, warehouse: 'south' }))).toMatchObject({
      accepted: true,
      forwarded: { warehouse: 'south' },
    });
  });

  it('coerces numeric strings and ignores ranges, integrality, patterns, enums, envelope fields and versions', () => {
    expect(
      baselineValidate(hold({ sku: 7, quantity: ' 2 ' }, { tenantId: 'globex', contractVersion: 'x' })),
    ).toMatchObject({ accepted: true, args: { sku: '7', quantity: 2 } });
    expect(baselineValidate(hold({ sku: 'x', quantity: -2.5 }))).toMatchObject({
      accepted: true,
      args: { quantity: -2.5 },
    });
    const refund = {
      requestId: 'r',
      action: 'issue_refund',
      args: { orderId: 'order-1', amountMinor: '49.99', currency: 'usd', reason: '' },
    };
    expect(baselineValidate(JSON.stringify(refund))).toMatchObject({
      accepted: true,
      args: { amountMinor: 49.99, currency: 'usd' },
    });
  });

  it('takes arguments as a JSON string, as chat-completion tool calls carry them', () => {
    expect(baselineValidate(hold(JSON.stringify({ sku: 'filter-blue', quantity: 2 })))).toMatchObject({
      accepted: true,
      args: { sku: 'filter-blue', quantity: 2 },
    });
  });

  it('lets JSON.parse decide duplicates (the last wins) and decodes bad UTF-8 leniently', () => {
    expect(baselineValidate('{"action":"hold_stock","args":{"sku":"a","quantity":1,"quantity":5}}')).toMatchObject({
      accepted: true,
      args: { quantity: 5 },
    });
    const bytes = new TextEncoder().encode('{"action":"hold_stock","args":{"sku":"a?","quantity":1}}');
    bytes[bytes.indexOf(0x3f)] = 0xff;
    expect(baselineValidate(bytes)).toMatchObject({ accepted: true, args: { sku: 'a\ufffd' } });
  });

  it('refuses only what it cannot read: broken JSON, non-objects, unknown actions, missing or untypeable arguments', () => {
    expect(baselineValidate('{"action":')).toEqual({ accepted: false, reason: 'invalid_json' });
    expect(baselineValidate('[]')).toEqual({ accepted: false, reason: 'not_an_object' });
    expect(baselineValidate(JSON.stringify({ action: 'drop_tables', args: {} }))).toEqual({
      accepted: false,
      reason: 'unknown_action',
    });
    expect(baselineValidate(hold({ sku: 'x' }))).toEqual({ accepted: false, reason: 'missing:quantity' });
    expect(baselineValidate(hold({ sku: 'x', quantity: null }))).toEqual({
      accepted: false,
      reason: 'missing:quantity',
    });
    expect(baselineValidate(hold({ sku: 'x', quantity: 'two' }))).toEqual({ accepted: false, reason: 'type:quantity' });
    expect(baselineValidate(hold({ sku: { id: 'x' }, quantity: 1 }))).toEqual({ accepted: false, reason: 'type:sku' });
    expect(baselineValidate(hold('not json'))).toEqual({ accepted: false, reason: 'args_not_json' });
  });
});

describe('loadCorpus', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  const ok = { outcome: 'accepted' };
  const env = (requestId: string, extra: Record<string, unknown> = {}) => ({
    requestId,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity: 1 },
    ...extra,
  });

  function corpus(files: Record<string, unknown>): string {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'corpus-'));
    for (const [name, content] of Object.entries(files)) {
      const file = path.join(root, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    }
    return root;
  }

  it('loads the project corpus: both actions, every case with exactly one body', () => {
    const suites = loadCorpus();
    expect(suites.map((s) => `${s.action} v${s.version}`)).toEqual(['hold_stock v1', 'issue_refund v1']);
    for (const suite of suites) for (const item of suite.cases) expect(item.body).toBeInstanceOf(Uint8Array);
  });

  it('reads bodies as JSON, raw text, base64 bytes, or padded JSON, and links repairs to earlier cases', () => {
    const dir = corpus({
      'hold_stock/v1/a.json': [
        {
          name: 'json',
          request: env('a.1'),
          expect: { outcome: 'rejected', status: 422, kind: 'schema', code: 'contract_violation' },
        },
        { name: 'raw', raw: '{"x":1}', expect: ok },
        { name: 'bytes', rawBase64: Buffer.from([0xff, 0x7b]).toString('base64'), expect: ok },
        { name: 'padded', request: env('a.2', { repairOf: 'a.1' }), padBytes: 3, expect: ok },
        { name: 'retry', reuse: true, request: env('a.2'), expect: { outcome: 'accepted', replay: true } },
      ],
    });
    const [suite] = loadCorpus(dir);
    const byName = new Map(suite!.cases.map((c) => [c.name, c]));
    expect(new TextDecoder().decode(byName.get('raw')!.body)).toBe('{"x":1}');
    expect([...byName.get('bytes')!.body]).toEqual([0xff, 0x7b]);
    expect(new TextDecoder().decode(byName.get('padded')!.body).endsWith('}   ')).toBe(true);
    expect(byName.get('padded')).toMatchObject({ requestId: 'a.2', repairOf: 'a.1', repairs: 'json' });
    expect(byName.get('json')!.agent).toBe('acme');
  });

  it.each([
    [
      'a duplicate requestId',
      {
        'hold_stock/v1/a.json': [{ name: 'one', request: env('x'), expect: ok }],
        'hold_stock/v1/b.json': [{ name: 'two', request: env('x'), expect: ok }],
      },
      /already used/,
    ],
    [
      'a reuse with nothing to reuse',
      { 'hold_stock/v1/a.json': [{ name: 'one', reuse: true, request: env('x'), expect: ok }] },
      /"reuse" needs an earlier case/,
    ],
    [
      'a repair naming a case of another file',
      {
        'hold_stock/v1/a.json': [{ name: 'one', request: env('x'), expect: ok }],
        'hold_stock/v1/b.json': [{ name: 'two', request: env('y', { repairOf: 'x' }), expect: ok }],
      },
      /not earlier in b\.json/,
    ],
    [
      'a repair naming a later case',
      {
        'hold_stock/v1/a.json': [
          { name: 'one', request: env('y', { repairOf: 'x' }), expect: ok },
          { name: 'two', request: env('x'), expect: ok },
        ],
      },
      /already used|not earlier/,
    ],
    [
      'two bodies',
      { 'hold_stock/v1/a.json': [{ name: 'one', request: env('x'), raw: '{}', expect: ok }] },
      /exactly one of/,
    ],
    ['no body', { 'hold_stock/v1/a.json': [{ name: 'one', expect: ok }] }, /exactly one of/],
    [
      'a duplicate name',
      {
        'hold_stock/v1/a.json': [
          { name: 'one', request: env('x'), expect: ok },
          { name: 'one', request: env('y'), expect: ok },
        ],
      },
      /used twice/,
    ],
    [
      'an unknown key',
      { 'hold_stock/v1/a.json': [{ name: 'one', request: env('x'), expect: ok, tenant: 'acme' }] },
      /tenant/,
    ],
    [
      'field and fields together',
      {
        'hold_stock/v1/a.json': [
          {
            name: 'one',
            request: env('x'),
            expect: { outcome: 'rejected', status: 422, kind: 'schema', code: 'c', field: 'a', fields: ['a', 'b'] },
          },
        ],
      },
      /either "field" or "fields"/,
    ],
    [
      'an unknown action folder',
      { 'drop_tables/v1/a.json': [{ name: 'one', request: env('x'), expect: ok }] },
      /no action is named/,
    ],
    [
      'an unknown contract version',
      { 'hold_stock/v9/a.json': [{ name: 'one', request: env('x'), expect: ok }] },
      /no contract version 9/,
    ],
    ['a file that is not an array', { 'hold_stock/v1/a.json': { name: 'one' } }, /non-empty JSON array/],
    ['a file that is not JSON', { 'hold_stock/v1/a.json': '[{' }, /not readable JSON/],
  ])('refuses %s', (_what, files, message) => {
    const dir = corpus(files);
    expect(() => loadCorpus(dir)).toThrow(CorpusFormatError);
    expect(() => loadCorpus(dir)).toThrow(message);
  });
});
