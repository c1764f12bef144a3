import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalJson, payloadHash, sha256Hex } from './payload-hash';

const VECTORS = fileURLToPath(new URL('../test/vectors/rfc8785/', import.meta.url));
const NAMES = ['arrays', 'french', 'structures', 'unicode', 'values', 'weird'] as const;

describe('canonicalJson (RFC 8785 reference vectors)', () => {
  it('has all six vectors on disk', () => {
    const inputs = fs.readdirSync(`${VECTORS}input`).sort();
    const outputs = fs.readdirSync(`${VECTORS}output`).sort();
    expect(inputs).toEqual(NAMES.map((name) => `${name}.json`));
    expect(outputs).toEqual(inputs);
  });

  it.each(NAMES)('%s.json canonicalizes to the expected bytes', (name) => {
    const input: unknown = JSON.parse(fs.readFileSync(`${VECTORS}input/${name}.json`, 'utf8'));
    const expected = fs.readFileSync(`${VECTORS}output/${name}.json`);
    const actual = Buffer.from(canonicalJson(input), 'utf8');
    expect(actual.toString('hex')).toBe(expected.toString('hex'));
  });

  it('is not merely sorted JSON.stringify (numbers and UTF-16 key order differ)', () => {
    expect(canonicalJson({ b: 1e30, a: 4.5 })).toBe('{"a":4.5,"b":1e+30}');
    // U+FB33 sorts before U+1F602 by UTF-8 bytes or code points, but after it by UTF-16 code units
    // (0xFB33 > 0xD83D), which is the order RFC 8785 §3.2.3 requires.
    expect(canonicalJson({ '\ufb33': 1, '\ud83d\ude02': 2 })).toBe('{"\ud83d\ude02":2,"\ufb33":1}');
  });

  it.each([
    ['undefined', undefined],
    ['NaN', Number.NaN],
    ['Infinity', { a: Number.POSITIVE_INFINITY }],
    ['a lone surrogate', { s: '\ud800' }],
  ])('refuses %s', (_label, value) => {
    expect(() => canonicalJson(value)).toThrow();
  });
});

describe('payloadHash', () => {
  const payload = {
    action: 'hold_stock',
    contractVersion: 1,
    tenantId: 'acme',
    args: { sku: 'filter-blue', quantity: 2 },
    evidenceRefs: [],
  };

  it('is "sha256:" followed by 64 lower-case hex digits', () => {
    expect(payloadHash(payload)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('is the SHA-256 of the JCS text, recomputable with any JCS implementation', () => {
    const jcs =
      '{"action":"hold_stock","args":{"quantity":2,"sku":"filter-blue"},"contractVersion":1,"evidenceRefs":[],"tenantId":"acme"}';
    expect(canonicalJson(payload)).toBe(jcs);
    expect(payloadHash(payload)).toBe(`sha256:${createHash('sha256').update(jcs, 'utf8').digest('hex')}`);
    expect(payloadHash({})).toBe('sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('ignores key order and whitespace but not values', () => {
    const reordered = JSON.parse(
      '{ "evidenceRefs": [], "args": { "quantity": 2.0, "sku": "filter-blue" }, "tenantId": "acme", ' +
        '"contractVersion": 1, "action": "hold_stock" }',
    ) as unknown;
    expect(payloadHash(reordered)).toBe(payloadHash(payload));
    expect(payloadHash({ ...payload, args: { sku: 'filter-blue', quantity: 3 } })).not.toBe(payloadHash(payload));
    expect(payloadHash({ ...payload, tenantId: 'globex' })).not.toBe(payloadHash(payload));
    expect(payloadHash({ ...payload, args: { sku: 'filter-blue ', quantity: 2 } })).not.toBe(payloadHash(payload));
  });
});
