import { parse, type ValueNode } from '@humanwhocodes/momoa';
import { Refusal } from '@/lib/errors/refusal';
import { toFieldIssues } from '@/lib/input/field-issues';
import type { RequestBody } from '@/lib/input/request-body';

/**
 * The one way a route reads a request body: as a stream, counted, and abandoned the moment it
 * passes `maxBytes` (a declared Content-Length over the cap is refused before reading anything).
 * Nothing larger than the cap is ever buffered, chunked or not.
 */
export async function readCappedBody(
  request: Request,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Every JSON body (intake's envelope and the operator mutations) is at most 64 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_DEPTH = 8;

/** Keys that mean something to JavaScript objects; no contract uses them, so they are refused outright. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The one JSON body reader of every JSON route. Checked before any schema, each with its own
 * code: the content type (415), the size (413, without buffering more than MAX_BODY_BYTES), UTF-8,
 * JSON, duplicate and forbidden keys, depth, lone surrogates and U+0000 (400, kind `malformed`).
 * `text` is the body byte for byte, for callers that keep it (intake's raw candidate).
 */
export async function readJsonBody(request: Request): Promise<{ text: string; value: unknown }> {
  assertJsonType(request);
  return parseJsonBytes(await readCappedBody(request, MAX_BODY_BYTES, tooLarge));
}

function assertJsonType(request: Request): void {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type.trim())) {
    throw new Refusal('unsupported_media_type', 'Send the body as JSON with "Content-Type: application/json".');
  }
}

function parseJsonBytes(bytes: Uint8Array<ArrayBuffer>): { text: string; value: unknown } {
  let text: string;
  try {
    // ignoreBOM keeps a byte order mark in the text, so the raw candidate stays byte-exact (and JSON.parse refuses it).
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Refusal('invalid_utf8', 'The body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Refusal('invalid_json', 'The body is not valid JSON.');
  }
  checkStructure(text);
  return { text, value };
}

/**
 * A request body read with readJsonBody and parsed with its schema: a body that fails the schema
 * (unknown fields, wrong types, missing fields) is `422`, kind `schema`, with `issues` in intake's
 * shape (`[{field, code, expected, received, message}]`). An absent body (no bytes, no stream)
 * stands for `spec.whenAbsent` when there is one.
 */
export async function readJsonRequest<T>(request: Request, spec: RequestBody<T>): Promise<T> {
  const absent = request.body === null || request.headers.get('content-length') === '0';
  if (absent && spec.whenAbsent !== undefined) return spec.whenAbsent;
  const value =
    spec.whenAbsent === undefined
      ? (await readJsonBody(request)).value
      : await readOptionalJson(request, spec.whenAbsent);
  const parsed = spec.schema.safeParse(value);
  if (!parsed.success) {
    throw new Refusal(spec.code, spec.message, {
      issues: toFieldIssues(parsed.error, value, spec.schema),
    });
  }
  return parsed.data;
}

/**
 * A verb whose body may be left out (a DELETE, an extension) may still arrive with an empty stream
 * and no Content-Length, with or without `Content-Type: application/json`: zero bytes stand for
 * the absent body. Bytes need the JSON content type like any other body.
 */
async function readOptionalJson<T>(request: Request, whenAbsent: T): Promise<unknown> {
  const typed = request.headers.has('content-type');
  if (typed) assertJsonType(request);
  const bytes = await readCappedBody(request, MAX_BODY_BYTES, tooLarge);
  if (bytes.byteLength === 0) return whenAbsent;
  if (!typed) assertJsonType(request);
  return parseJsonBytes(bytes).value;
}

function tooLarge() {
  return new Refusal('too_large', `The body is larger than ${MAX_BODY_BYTES} bytes.`);
}

/** Duplicate keys, depth (the envelope is level 1) and strings RFC 8785 cannot canonicalize. */
function checkStructure(text: string): void {
  // The AST parser recurses; refuse deep nesting before it can exhaust the stack.
  if (maxNesting(text) > MAX_DEPTH) throw tooDeep();
  const stack: { node: ValueNode; depth: number }[] = [{ node: parse(text, { mode: 'json' }).body, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node.type === 'String') {
      checkString(node.value);
      continue;
    }
    if (node.type !== 'Object' && node.type !== 'Array') continue;
    if (depth > MAX_DEPTH) {
      throw tooDeep();
    }
    if (node.type === 'Array') {
      for (const element of node.elements) stack.push({ node: element.value, depth: depth + 1 });
      continue;
    }
    const seen = new Set<string>();
    for (const member of node.members) {
      const key = member.name.type === 'String' ? member.name.value : member.name.name;
      checkString(key);
      if (seen.has(key)) throw new Refusal('duplicate_key', 'An object in the body names the same key twice.');
      if (FORBIDDEN_KEYS.has(key))
        throw new Refusal('forbidden_key', `The key "${key}" is not allowed anywhere in the body.`);
      seen.add(key);
      stack.push({ node: member.value, depth: depth + 1 });
    }
  }
}

/** Deepest nesting of objects and arrays in already-valid JSON text (brackets inside strings do not count). */
function maxNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return deepest;
}

function tooDeep() {
  return new Refusal('too_deep', `The body nests more than ${MAX_DEPTH} objects or arrays.`);
}

/** RFC 8785 cannot canonicalize a lone surrogate, and PostgreSQL cannot store U+0000. */
function checkString(value: string): void {
  if (!value.isWellFormed()) throw loneSurrogate();
  if (value.includes('\u0000'))
    throw new Refusal('nul_character', 'A string holds U+0000, which cannot be stored; remove it.');
}

function loneSurrogate() {
  return new Refusal(
    'lone_surrogate',
    'A string holds a lone UTF-16 surrogate, which cannot be canonicalized (RFC 8785).',
  );
}
