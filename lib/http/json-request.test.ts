import { describe, expect, it } from 'vitest';
import { decisionRequest, extendRequest, revisionRequest } from '@/lib/decisions/requests';
import { type RequestBody } from '@/lib/input/request-body';
import { expectApiError } from '@/test/errors';
import { MAX_BODY_BYTES, readJsonRequest } from './body';

const HASH = `sha256:${'a'.repeat(64)}`;

function post(body: string | null, headers: Record<string, string> = { 'content-type': 'application/json' }): Request {
  return new Request('http://countersign.test/api/v1/proposals/prp_1/x', { method: 'POST', body, headers });
}

/** Every operator mutation's body, with one valid body each. */
const MUTATIONS: [string, RequestBody<unknown>, unknown][] = [
  ['decisions', decisionRequest as RequestBody<unknown>, { decision: 'approve', payloadHash: HASH }],
  [
    'revisions',
    revisionRequest as RequestBody<unknown>,
    { args: { quantity: 2 }, reason: 'The customer asked for two' },
  ],
  ['extend', extendRequest as RequestBody<unknown>, {}],
];

describe.each(MUTATIONS)('readJsonRequest: the %s body', (_verb, spec, valid) => {
  it('parses a valid body', async () => {
    await expect(readJsonRequest(post(JSON.stringify(valid)), spec)).resolves.toEqual(valid);
  });

  it.each([
    ['malformed JSON', '{"decision": ', 400, 'invalid_json'],
    ['a duplicate key', '{"a": 1, "a": 2}', 400, 'duplicate_key'],
    ['a forbidden key', '{"__proto__": {}}', 400, 'forbidden_key'],
  ])('refuses %s as malformed, before the schema', async (_label, text, status, code) => {
    await expectApiError(readJsonRequest(post(text), spec), { status, code, kind: 'malformed' });
  });

  it('refuses another content type with 415', async () => {
    await expectApiError(readJsonRequest(post(JSON.stringify(valid), { 'content-type': 'text/plain' }), spec), {
      status: 415,
      code: 'unsupported_media_type',
      kind: 'malformed',
    });
  });

  it('refuses a body over the cap with 413', async () => {
    const text = JSON.stringify({ pad: 'x'.repeat(MAX_BODY_BYTES) });
    await expectApiError(readJsonRequest(post(text), spec), { status: 413, code: 'too_large', kind: 'malformed' });
  });

  it.each([
    [
      'an unknown field',
      { ...(valid as object), approvedBy: 'carol' },
      { field: 'approvedBy', code: 'unknown_field', expected: 'no such field', received: 'string of 5 characters' },
    ],
    [
      'an array instead of an object',
      [1, 2],
      { field: '(body)', code: 'invalid_type', expected: 'object', received: 'array of 2 items' },
    ],
    [
      'a string instead of an object',
      'approve',
      { field: '(body)', code: 'invalid_type', expected: 'object', received: 'string of 7 characters' },
    ],
  ])('answers %s with 422 and issues in intake’s shape', async (_label, body, issue) => {
    const error = await expectApiError(readJsonRequest(post(JSON.stringify(body)), spec), {
      status: 422,
      code: spec.code,
      kind: 'schema',
    });
    const issues = error.details.issues as unknown[] | undefined;
    expect(issues).toContainEqual({ ...issue, message: expect.any(String) });
    for (const each of issues ?? [])
      expect(Object.keys(each as object).sort()).toEqual(['code', 'expected', 'field', 'message', 'received']);
  });
});

describe('readJsonRequest: wrong types name their field', () => {
  it.each<[string, RequestBody<unknown>, unknown, string, string]>([
    [
      'a numeric hash',
      decisionRequest as RequestBody<unknown>,
      { decision: 'approve', payloadHash: 42 },
      'payloadHash',
      'invalid_type',
    ],
    [
      'an unknown decision',
      decisionRequest as RequestBody<unknown>,
      { decision: 'maybe', payloadHash: HASH },
      'decision',
      'invalid_value',
    ],
    [
      'a rejection without a reason',
      decisionRequest as RequestBody<unknown>,
      { decision: 'reject', payloadHash: HASH },
      'reason',
      'custom',
    ],
    ['args as a list', revisionRequest as RequestBody<unknown>, { args: [1], reason: 'x' }, 'args', 'invalid_type'],
    ['no args', revisionRequest as RequestBody<unknown>, { reason: 'x' }, 'args', 'required'],
  ])('%s', async (_label, spec, body, field, code) => {
    const error = await expectApiError(readJsonRequest(post(JSON.stringify(body)), spec), {
      status: 422,
      code: spec.code,
      kind: 'schema',
    });
    expect(error.details.issues).toContainEqual(expect.objectContaining({ field, code }));
  });
});

describe('readJsonRequest: an absent body', () => {
  it('stands for {} when extending', async () => {
    await expect(readJsonRequest(post(null, {}), extendRequest)).resolves.toEqual({});
  });

  /**
   * How a client leaves the body out: no body at all, an empty string (Content-Length: 0), or an empty stream with no
   * length.
   */
  const BODIES: Record<string, (text: string) => BodyInit | null> = {
    'no body': () => null,
    'a sized body': (text) => new TextEncoder().encode(text),
    'a stream': (text) => new Blob([text]).stream(),
  };
  const request = (method: string, form: string, text: string, headers: Record<string, string>) =>
    new Request('http://countersign.test/api/v1/admin/members/usr_1', {
      method,
      body: BODIES[form]!(text),
      headers,
      duplex: 'half',
    } as RequestInit);

  // [method, how the body is left out or sent, its text, Content-Type, what readJsonRequest answers]
  it.each<[string, string, string, string | undefined, { value: unknown } | { status: number; code: string }]>([
    ['DELETE', 'no body', '', undefined, { value: {} }],
    ['DELETE', 'no body', '', 'application/json', { value: {} }],
    ['DELETE', 'a sized body', '', undefined, { value: {} }],
    ['DELETE', 'a sized body', '', 'application/json', { value: {} }],
    ['DELETE', 'a stream', '', undefined, { value: {} }],
    ['DELETE', 'a stream', '', 'application/json', { value: {} }],
    ['DELETE', 'a stream', '', 'application/json; charset=utf-8', { value: {} }],
    ['POST', 'a stream', '', 'application/json', { value: {} }],
    ['DELETE', 'a stream', '{}', 'application/json', { value: {} }],
    ['DELETE', 'a stream', '{}', undefined, { status: 415, code: 'unsupported_media_type' }],
    ['DELETE', 'a stream', '', 'text/plain', { status: 415, code: 'unsupported_media_type' }],
    ['DELETE', 'a stream', ' ', 'application/json', { status: 400, code: 'invalid_json' }],
    ['DELETE', 'a stream', '{"x":1}', 'application/json', { status: 422, code: 'invalid_extension' }],
  ])('%s with %s %j and Content-Type %s: %j', async (method, form, text, type, answer) => {
    const headers: Record<string, string> = type === undefined ? {} : { 'content-type': type };
    const read = readJsonRequest(request(method, form, text, headers), extendRequest);
    if ('value' in answer) await expect(read).resolves.toEqual(answer.value);
    else await expectApiError(read, answer);
  });

  it('is refused where a body is required', async () => {
    await expectApiError(readJsonRequest(post(null, {}), decisionRequest), {
      status: 415,
      code: 'unsupported_media_type',
    });
    await expectApiError(readJsonRequest(post(null), revisionRequest), { status: 400, code: 'invalid_json' });
  });
});
