import { parse } from '@humanwhocodes/momoa';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { expectApiError } from '@/test/errors';
import { MAX_BODY_BYTES, readJsonBody } from './body';

// The JSON AST parser, counted: a deep document must be refused before it is parsed (the parser
// recurses, so 10,000 levels would cost it the stack or seconds), not after.
vi.mock('@humanwhocodes/momoa', async (importOriginal) => {
  const momoa = await importOriginal<typeof import('@humanwhocodes/momoa')>();
  return { ...momoa, parse: vi.fn(momoa.parse) };
});

const URL_ = 'http://countersign.test/api/v1/proposals';

/** A POST with exactly these headers (a Uint8Array body adds no content type of its own). */
function post(
  body: string | Uint8Array,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Request {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return new Request(URL_, { method: 'POST', body: Uint8Array.from(bytes), headers });
}

/** A chunked POST with no Content-Length, as a streaming client sends it. */
function streamed(
  chunks: Uint8Array[],
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Request {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  return new Request(URL_, { method: 'POST', body: stream, headers, duplex: 'half' } as RequestInit);
}

const nested = (levels: number, kind: 'object' | 'array' | 'mixed') => {
  let text = '1';
  for (let level = levels; level >= 1; level--) {
    const asArray = kind === 'array' || (kind === 'mixed' && level % 2 === 0);
    text = asArray ? `[${text}]` : `{"k${level}":${text}}`;
  }
  return text;
};

describe('readJsonBody: content type', () => {
  it.each([
    ['missing', undefined],
    ['text/plain', 'text/plain'],
    ['form encoded', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['a JSON look-alike', 'application/jsonp'],
    ['another charset', 'application/json; charset=latin1'],
    ['JOSE', 'application/jose'],
  ])('refuses %s with 415 unsupported_media_type', async (_label, type) => {
    const headers: Record<string, string> = type === undefined ? {} : { 'content-type': type };
    await expectApiError(readJsonBody(post('{"a":1}', headers)), {
      status: 415,
      kind: 'malformed',
      code: 'unsupported_media_type',
    });
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8'])(
    'accepts %s',
    async (type) => {
      await expect(readJsonBody(post('{"a":1}', { 'content-type': type }))).resolves.toEqual({
        text: '{"a":1}',
        value: { a: 1 },
      });
    },
  );
});

describe('readJsonBody: size', () => {
  const padTo = (bytes: number) => {
    const frame = '{"pad":""}';
    return `{"pad":"${'x'.repeat(bytes - frame.length)}"}`;
  };

  it('accepts a body of exactly 64 KiB', async () => {
    const text = padTo(MAX_BODY_BYTES);
    expect(Buffer.byteLength(text)).toBe(64 * 1024);
    const result = await readJsonBody(post(text));
    expect(result.text).toBe(text);
  });

  it('refuses one byte more with 413 too_large (with Content-Length)', async () => {
    const text = padTo(MAX_BODY_BYTES + 1);
    await expectApiError(
      readJsonBody(
        post(text, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }),
      ),
      { status: 413, kind: 'malformed', code: 'too_large' },
    );
  });

  it('refuses a declared size over the limit before reading the body', async () => {
    await expectApiError(
      readJsonBody(post('{"a":1}', { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) })),
      { status: 413, code: 'too_large' },
    );
  });

  it('refuses a streamed body over the limit without Content-Length', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(16 * 1024));
    const request = streamed([
      new TextEncoder().encode('{"a":'),
      chunk,
      chunk,
      chunk,
      chunk,
      new TextEncoder().encode('1}'),
    ]);
    expect(request.headers.get('content-length')).toBeNull();
    await expectApiError(readJsonBody(request), { status: 413, kind: 'malformed', code: 'too_large' });
  });

  it('refuses a body larger than its (lying) Content-Length says', async () => {
    const text = padTo(MAX_BODY_BYTES + 100);
    await expectApiError(readJsonBody(post(text, { 'content-type': 'application/json', 'content-length': '10' })), {
      status: 413,
      code: 'too_large',
    });
  });

  it('reads a small streamed body without Content-Length', async () => {
    const encoder = new TextEncoder();
    const result = await readJsonBody(streamed([encoder.encode('{"a":'), encoder.encode('[1,2]}')]));
    expect(result).toEqual({ text: '{"a":[1,2]}', value: { a: [1, 2] } });
  });
});

describe('readJsonBody: malformed bodies', () => {
  it.each([
    ['an empty body', ''],
    ['a truncated object', '{"a":1'],
    ['single quotes', "{'a':1}"],
    ['a trailing comma', '{"a":1,}'],
    ['NaN', '{"a":NaN}'],
    ['a comment', '{"a":1 /* hi */}'],
    ['trailing garbage', '{"a":1} x'],
  ])('refuses %s with 400 invalid_json', async (_label, text) => {
    await expectApiError(readJsonBody(post(text)), { status: 400, kind: 'malformed', code: 'invalid_json' });
  });

  it('refuses bytes that are not UTF-8 with 400 invalid_utf8', async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"a":"'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('"}'),
    ]);
    await expectApiError(readJsonBody(post(bytes)), { status: 400, kind: 'malformed', code: 'invalid_utf8' });
  });

  it.each([
    ['at the top level', '{"requestId":"a","requestId":"b"}'],
    ['in a nested object', '{"args":{"sku":"filter-blue","quantity":1,"quantity":4}}'],
    ['in an object inside an array', '{"list":[{"a":1},{"b":1,"b":1}]}'],
    ['spelled once plainly and once escaped ("a" vs "\\u0061")', '{"a":1,"\\u0061":2}'],
    ['with identical values', '{"a":1,"a":1}'],
  ])('refuses a duplicate key %s with 400 duplicate_key', async (_label, text) => {
    await expectApiError(readJsonBody(post(text)), { status: 400, kind: 'malformed', code: 'duplicate_key' });
  });

  it('keeps keys that differ only in case apart', async () => {
    await expect(readJsonBody(post('{"a":1,"A":2}'))).resolves.toMatchObject({ value: { a: 1, A: 2 } });
  });

  it.each(['object', 'array', 'mixed'] as const)(
    'accepts 8 nested levels of %s (the envelope is level 1)',
    async (kind) => {
      const text = nested(8, kind);
      await expect(readJsonBody(post(text))).resolves.toMatchObject({ text });
    },
  );

  it.each(['object', 'array', 'mixed'] as const)('refuses 9 nested levels of %s with 400 too_deep', async (kind) => {
    await expectApiError(readJsonBody(post(nested(9, kind))), { status: 400, kind: 'malformed', code: 'too_deep' });
  });

  it('refuses 30,000 nested arrays (60 KB, under the size limit) with 400 too_deep, not a crash', async () => {
    const text = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_BODY_BYTES);
    await expectApiError(readJsonBody(post(text)), { status: 400, kind: 'malformed', code: 'too_deep' });
  });

  it.each([
    ['a high surrogate in a value', '{"s":"\\ud800"}'],
    ['a low surrogate in a value', '{"s":"x\\udc00y"}'],
    ['a reversed pair in a value', '{"s":"\\ude02\\ud83d"}'],
    ['a lone surrogate in a key', '{"\\ud800":1}'],
    ['a lone surrogate in a nested key', '{"args":{"k\\udfff":1}}'],
    ['a lone surrogate in an array', '{"evidenceRefs":["ok","\\ud83d"]}'],
  ])('refuses %s with 400 lone_surrogate', async (_label, text) => {
    await expectApiError(readJsonBody(post(text)), { status: 400, kind: 'malformed', code: 'lone_surrogate' });
  });

  it('accepts a proper surrogate pair', async () => {
    await expect(readJsonBody(post('{"s":"\\ud83d\\ude02"}'))).resolves.toMatchObject({ value: { s: '😂' } });
  });
});

describe('readJsonBody: keys that mean something to JavaScript objects', () => {
  it.each([
    ['__proto__ at the top level', '{"requestId":"r1","__proto__":{"approved":true}}'],
    ['constructor at the top level', '{"constructor":{"prototype":{"approved":true}}}'],
    ['prototype at the top level', '{"prototype":1}'],
    ['__proto__ in args', '{"args":{"sku":"filter-blue","__proto__":{"quantity":4}}}'],
    ['constructor in args', '{"args":{"constructor":"x"}}'],
    ['prototype deep down', '{"a":{"b":{"c":{"prototype":null}}}}'],
    ['__proto__ in an object inside an array', '{"evidenceRefs":[{"__proto__":[]}]}'],
    ['constructor in an object inside an array', '[1,{"constructor":1}]'],
    ['__proto__ spelled with escapes', '{"\\u005f_proto__":{"approved":true}}'],
    ['constructor spelled with escapes', '{"args":{"c\\u006fnstructor":1}}'],
  ])('refuses %s with 400 forbidden_key', async (_label, text) => {
    await expectApiError(readJsonBody(post(text)), { status: 400, kind: 'malformed', code: 'forbidden_key' });
  });

  it.each(['__proto__', 'constructor', 'prototype'])(
    'accepts "%s" as a value (only keys are refused)',
    async (word) => {
      const text = `{"reason":"${word}","list":["${word}"]}`;
      await expect(readJsonBody(post(text))).resolves.toEqual({ text, value: { reason: word, list: [word] } });
    },
  );

  it.each(['__proto___', '_proto_', 'Constructor', 'PROTOTYPE', 'proto'])(
    'accepts the look-alike key %j',
    async (key) => {
      await expect(readJsonBody(post(`{"${key}":1}`))).resolves.toMatchObject({ value: { [key]: 1 } });
    },
  );
});

describe('readJsonBody: deep documents under the size limit', () => {
  beforeEach(() => {
    vi.mocked(parse).mockClear();
  });

  it.each([
    ['arrays', `${'['.repeat(10_000)}${']'.repeat(10_000)}`],
    ['objects', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`],
    ['arrays with a forbidden key at the bottom', `${'['.repeat(10_000)}{"__proto__":1}${']'.repeat(10_000)}`],
  ])('refuses 10,000 nested %s with 400 too_deep before parsing them, and keeps working', async (_label, text) => {
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_BODY_BYTES);
    await expectApiError(readJsonBody(post(text)), { status: 400, kind: 'malformed', code: 'too_deep' });
    expect(parse).not.toHaveBeenCalled();
    // The process is still healthy: the next body is read (and parsed, once) as usual.
    const next = '{"requestId":"req_after_deep","args":{"quantity":2}}';
    await expect(readJsonBody(post(next))).resolves.toEqual({ text: next, value: JSON.parse(next) });
    expect(parse).toHaveBeenCalledTimes(1);
  });
});

describe('readJsonBody: a valid body', () => {
  it('returns the exact text as received (whitespace, escapes, key order, non-ASCII) and its value', async () => {
    const text =
      '{\n  "requestId": "req_01",\r\n\t"action":"hold_stock", "contractVersion": 1.0,\n' +
      '  "args": {"quantity": 2, "sku": "filter-blue"}, "evidenceRefs": ["\\u0074icket", "café ☕"] }\n';
    const result = await readJsonBody(post(text));
    expect(result.text).toBe(text);
    expect(result.value).toEqual({
      requestId: 'req_01',
      action: 'hold_stock',
      contractVersion: 1,
      args: { quantity: 2, sku: 'filter-blue' },
      evidenceRefs: ['ticket', 'café ☕'],
    });
  });
});
