import type { z } from 'zod';

/**
 * One problem with a client's input, named by the field's own dotted name (docs/design.md §4): the
 * `issues` of a 422. The error body's schema (lib/api/responses/error.ts) is checked against it.
 */
export type FieldIssue = { field: string; code: string; expected: string; received: string; message: string };

function describeType(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The value at a path of an input; undefined where the path leads nowhere. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key as string];
  }
  return current;
}

/** "1 character", "2 characters", "0 items". */
export const counted = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** What was received, described without echoing strings (they may hold secrets or instructions). */
function describeReceived(value: unknown): string {
  if (typeof value === 'string') return `string of ${counted([...value].length, 'character')}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${describeType(value)} ${String(value)}`;
  if (Array.isArray(value)) return `array of ${counted(value.length, 'item')}`;
  return describeType(value);
}

function bound(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, word: 'at most' | 'at least'): string {
  const limit = String('maximum' in issue ? issue.maximum : issue.minimum);
  const inclusive = issue.inclusive !== false;
  const relation = inclusive ? word : word === 'at most' ? 'less than' : 'more than';
  switch (issue.origin) {
    case 'string':
      return `a string of ${relation} ${counted(Number(limit), 'character')}`;
    case 'array':
      return `an array of ${relation} ${counted(Number(limit), 'item')}`;
    default:
      return `a number ${relation} ${limit}`;
  }
}

type SchemaDef = {
  type: string;
  format?: string;
  shape?: Record<string, { _zod: { def: SchemaDef } }>;
  element?: { _zod: { def: SchemaDef } };
  innerType?: { _zod: { def: SchemaDef } };
  in?: { _zod: { def: SchemaDef } };
};

/** The schema node at a path, looking through optional/default/nullable/pipe wrappers. */
function schemaAt(schema: z.ZodType | undefined, path: readonly PropertyKey[]): SchemaDef | undefined {
  let def = schema?._zod.def as SchemaDef | undefined;
  const unwrap = () => {
    while (def && (def.innerType || (def.type === 'pipe' && def.in))) def = (def.innerType ?? def.in)!._zod.def;
  };
  unwrap();
  for (const key of path) {
    if (!def) return undefined;
    def =
      def.type === 'object'
        ? def.shape?.[String(key)]?._zod.def
        : def.type === 'array'
          ? def.element?._zod.def
          : undefined;
    unwrap();
  }
  return def;
}

function expectedFor(issue: z.core.$ZodIssue, schema: z.ZodType | undefined): string {
  switch (issue.code) {
    case 'invalid_type': {
      // zod reports "number" for z.int() given a string or boolean; the contract wants an integer.
      const node = schemaAt(schema, issue.path);
      if (issue.expected === 'int' || (node?.type === 'number' && node.format?.includes('int'))) return 'integer';
      return String(issue.expected);
    }
    case 'too_big':
      return bound(issue, 'at most');
    case 'too_small':
      return bound(issue, 'at least');
    case 'invalid_format':
      return issue.format === 'regex' && 'pattern' in issue ? `text matching ${String(issue.pattern)}` : issue.format;
    case 'invalid_value': {
      const shown = issue.values
        .slice(0, 8)
        .map((v) => JSON.stringify(v))
        .join(', ');
      return issue.values.length > 8 ? `one of ${issue.values.length} allowed values (${shown}, …)` : `one of ${shown}`;
    }
    case 'not_multiple_of':
      return `a multiple of ${String(issue.divisor)}`;
    default:
      return 'a valid value';
  }
}

/**
 * Zod issues as the agent API reports them: one per field, the field as its own dotted name,
 * what was expected and what came, in words. Unknown keys become one `unknown_field` issue each.
 */
export function toFieldIssues(error: z.ZodError, input: unknown, schema?: z.ZodType): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push(unknownFieldIssue([...path, key].map(String).join('.'), valueAt(input, [...issue.path, key])));
      }
      continue;
    }
    const received = valueAt(input, issue.path);
    // A missing field is "required" whatever its type (zod says invalid_value for a missing enum).
    const code =
      (issue.code === 'invalid_type' || issue.code === 'invalid_value') && received === undefined
        ? 'required'
        : issue.code;
    issues.push(fieldIssue(path.map(String).join('.') || '(body)', code, expectedFor(issue, schema), received));
  }
  return issues;
}

/**
 * One issue in the agent API's words: `"field" is required: expected …` when `code` is `required`,
 * else `"field" must be …; received …` (what came described, never echoed). Every validator's
 * issues are worded here, so a repair loop reads them alike whichever validator found them.
 */
export function fieldIssue(field: string, code: string, expected: string, received: unknown): FieldIssue {
  return {
    field,
    code,
    expected,
    received: describeReceived(received),
    message:
      code === 'required'
        ? `"${field}" is required: expected ${expected}.`
        : `"${field}" must be ${expected}; received ${describeReceived(received)}.`,
  };
}

/** A field the contract does not define, named so the client can remove it. */
export function unknownFieldIssue(field: string, received: unknown): FieldIssue {
  return {
    field,
    code: 'unknown_field',
    expected: 'no such field',
    received: describeReceived(received),
    message: `"${field}" is not a field of this contract; remove it.`,
  };
}
