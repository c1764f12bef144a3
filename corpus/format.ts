import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { findAction, findContract } from '@/lib/actions/registry';
import { TENANTS } from './world';

/**
 * The corpus format (documented for people in corpus/README.md):
 * corpus/<action>/v<N>/<group>.json, each file a JSON array of cases.
 */

const expectAccepted = z.strictObject({
  outcome: z.literal('accepted'),
  /** The requestId was used before with the same payload: 200 and the same proposal (default: a new one, 201). */
  replay: z.boolean().optional(),
});

const expectRejected = z
  .strictObject({
    outcome: z.literal('rejected'),
    status: z.int().min(400).max(599),
    kind: z.string().min(1),
    code: z.string().min(1),
    /** The one field the error names (issues[].field); with `field`, no other field may be named. */
    field: z.string().optional(),
    /** Every field the error names, when one request has several faults (order does not matter). */
    fields: z.array(z.string()).min(2).optional(),
    /** The issue code reported for `field` (invalid_type, too_small, unknown_field, …). */
    issue: z.string().min(1).optional(),
  })
  .refine((value) => !(value.field !== undefined && value.fields !== undefined), {
    message: 'use either "field" or "fields", not both',
  })
  .refine((value) => value.issue === undefined || value.field !== undefined, { message: '"issue" needs "field"' });

export const caseSchema = z
  .strictObject({
    /** Unique inside its action and version: lower-case words joined by hyphens. */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,79}$/),
    /** Why the case is there, in words (optional). */
    why: z.string().min(1).optional(),
    /** Whose seeded agent key sends it (docs/design.md §13): acme-support-bot or globex-bot. */
    agent: z.enum(TENANTS as [string, ...string[]]).default('acme'),
    /** The Content-Type header (default application/json). */
    contentType: z.string().optional(),
    /** The body as JSON: serialized with JSON.stringify (no whitespace). */
    request: z.unknown().optional(),
    /** The body as text, sent byte for byte as UTF-8 (for bodies JSON.stringify cannot produce). */
    raw: z.string().optional(),
    /** The body as arbitrary bytes, base64-encoded (for invalid UTF-8). */
    rawBase64: z.base64().optional(),
    /** Appends this many spaces to a `request` body (valid JSON whitespace), e.g. to exceed the size limit. */
    padBytes: z.int().min(1).max(1_000_000).optional(),
    /** The requestId deliberately repeats an earlier case's of the same file (a retry or a conflict). */
    reuse: z.literal(true).optional(),
    expect: z.discriminatedUnion('outcome', [expectAccepted, expectRejected]),
  })
  .refine((value) => value.padBytes === undefined || 'request' in value, { message: '"padBytes" needs "request"' });

export type CorpusCase = z.infer<typeof caseSchema>;
export type Expectation = CorpusCase['expect'];

export type LoadedCase = CorpusCase & {
  file: string;
  /** The exact bytes sent. */
  body: Uint8Array;
  /** The envelope's requestId and repairOf, when the body is JSON and names them. */
  requestId?: string;
  repairOf?: string;
  /** The earlier case of the same file whose requestId `repairOf` names: this case is a repair. */
  repairs?: string;
};

export type CorpusSuite = { action: string; version: number; files: string[]; cases: LoadedCase[] };

export class CorpusFormatError extends Error {
  constructor(where: string, problem: string) {
    super(`${where}: ${problem}`);
    this.name = 'CorpusFormatError';
  }
}

export const DEFAULT_CORPUS_DIR = path.join(process.cwd(), 'corpus');

const BODY_KEYS = ['request', 'raw', 'rawBase64'] as const;

function bodyOf(value: CorpusCase, where: string): Uint8Array {
  const given = BODY_KEYS.filter((key) => key in value);
  if (given.length !== 1)
    throw new CorpusFormatError(where, `give exactly one of ${BODY_KEYS.join(', ')} (got ${given.length})`);
  if (value.rawBase64 !== undefined) return new Uint8Array(Buffer.from(value.rawBase64, 'base64'));
  if (value.raw !== undefined) return new TextEncoder().encode(value.raw);
  const text = JSON.stringify(value.request);
  if (text === undefined) throw new CorpusFormatError(where, '"request" must be a JSON value');
  return new TextEncoder().encode(text + ' '.repeat(value.padBytes ?? 0));
}

function envelopeField(body: Uint8Array, name: string): string | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    const field =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>)[name]
        : undefined;
    return typeof field === 'string' ? field : undefined;
  } catch {
    return undefined;
  }
}

function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CorpusFormatError(file, `not readable JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

function listDirectories(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * Reads and checks the whole corpus: every file against the case format, case names unique per
 * action and version, requestIds unique across the corpus (they share two agent keys and one
 * database) unless a case says `reuse`, and every repair naming an earlier case of its own file.
 */
export function loadCorpus(root = DEFAULT_CORPUS_DIR): CorpusSuite[] {
  const suites: CorpusSuite[] = [];
  const requestIds = new Map<string, string>();
  const dangling: { at: string; file: string; repairOf: string }[] = [];
  for (const action of listDirectories(root)) {
    if (!findAction(action)) throw new CorpusFormatError(path.join(root, action), `no action is named "${action}"`);
    for (const versionDir of listDirectories(path.join(root, action))) {
      const where = path.join(root, action, versionDir);
      const match = /^v([1-9][0-9]*)$/.exec(versionDir);
      if (!match) throw new CorpusFormatError(where, 'version folders are named v<N>');
      const version = Number(match[1]);
      if (!findContract(findAction(action)!, version))
        throw new CorpusFormatError(where, `${action} has no contract version ${version}`);
      const files = fs
        .readdirSync(where)
        .filter((name) => name.endsWith('.json'))
        .sort();
      const suite: CorpusSuite = { action, version, files, cases: [] };
      const names = new Set<string>();
      for (const file of files) {
        const filePath = path.join(where, file);
        const cases = z.array(z.unknown()).min(1).safeParse(readJsonFile(filePath));
        if (!cases.success) throw new CorpusFormatError(filePath, 'a corpus file is a non-empty JSON array of cases');
        const inFile = new Map<string, string>();
        cases.data.forEach((raw, index) => {
          const parsed = caseSchema.safeParse(raw);
          const label = `${path.relative(process.cwd(), filePath)}[${index}]`;
          if (!parsed.success) throw new CorpusFormatError(label, z.prettifyError(parsed.error));
          const value = parsed.data;
          const at = `${label} (${value.name})`;
          if (names.has(value.name))
            throw new CorpusFormatError(at, `the name "${value.name}" is used twice in ${action} v${version}`);
          names.add(value.name);
          const body = bodyOf(value, at);
          const requestId = envelopeField(body, 'requestId');
          const repairOf = envelopeField(body, 'repairOf');
          if (requestId !== undefined) {
            if (value.reuse) {
              if (!inFile.has(requestId))
                throw new CorpusFormatError(
                  at,
                  `"reuse" needs an earlier case of ${file} with requestId "${requestId}"`,
                );
            } else if (requestIds.has(requestId)) {
              throw new CorpusFormatError(
                at,
                `requestId "${requestId}" is already used by ${requestIds.get(requestId)}; set "reuse": true only ` +
                  `for a deliberate retry or conflict`,
              );
            }
            requestIds.set(requestId, at);
          } else if (value.reuse) {
            throw new CorpusFormatError(at, '"reuse" needs a body with a requestId');
          }
          const repairs = repairOf === undefined ? undefined : inFile.get(repairOf);
          if (repairOf !== undefined && repairs === undefined) dangling.push({ at, file, repairOf });
          if (requestId !== undefined && !inFile.has(requestId)) inFile.set(requestId, value.name);
          suite.cases.push({ ...value, file, body, requestId, repairOf, repairs });
        });
      }
      suites.push(suite);
    }
  }
  // A repairOf that names no earlier case of its file may name no case at all (it tests unknown_repair_target).
  for (const { at, file, repairOf } of dangling) {
    if (requestIds.has(repairOf)) {
      throw new CorpusFormatError(
        at,
        `repairOf "${repairOf}" names a case that is not earlier in ${file}; a repair chain stays in one file, ` +
          `in order`,
      );
    }
  }
  return suites;
}
