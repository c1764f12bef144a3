import { RE2JS } from '@bufbuild/re2';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import type { RegExpEngine } from 'ajv/dist/types';
import addFormats from 'ajv-formats';
import { counted, type FieldIssue, fieldIssue, unknownFieldIssue, valueAt } from '@/lib/input/field-issues';

/**
 * Arguments (and receipts) against a definition's JSON Schema 2020-12, with Ajv (tested against
 * the JSON Schema test suite). Validation only: it never coerces ("5" is no integer), never fills
 * a default (it would change what is hashed), never removes an unknown field (it is refused,
 * named). Strict mode refuses a schema with a keyword it does not know or a type it cannot hold,
 * rather than ignoring it.
 *
 * A tenant writes the schema, so its `pattern`s run on RE2 (the engine CEL's `matches` uses), in
 * time linear in the text: a pattern such as `^(a+)+$` cannot hold a request thread for minutes.
 * RE2 has no backreferences or lookaround; a pattern using them is refused when the definition is
 * parsed, naming it.
 */
class PatternRefused extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`the pattern /${pattern}/ cannot run here (${reason})`);
  }
}

const re2: RegExpEngine = Object.assign(
  (pattern: string) => {
    try {
      return RE2JS.compile(pattern);
    } catch (error) {
      throw new PatternRefused(pattern, (error as Error).message.replace(/^error parsing regexp: /, ''));
    }
  },
  { code: 'RE2JS.compile' },
);

const ajv = new Ajv2020({
  strict: true,
  allErrors: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  // The errors carry the schema they come from: a missing field's expected type is read from it.
  verbose: true,
  // Tenants' schemas are compiled apart: one's $id never resolves inside another's.
  addUsedSchema: false,
  code: { regExp: re2 },
});
addFormats(ajv);

/** The issues of a value against the schema; none when it is valid. */
export type Validator = (value: unknown) => FieldIssue[];

/** A schema as a validator, or why Ajv refuses it (not JSON Schema 2020-12, an unknown keyword or format). */
export function compileSchema(schema: Record<string, unknown>): { validate: Validator } | { problem: string } {
  let check: ValidateFunction;
  try {
    check = ajv.compile(schema);
  } catch (error) {
    if (error instanceof PatternRefused)
      return {
        problem:
          `${error.message}: patterns run on RE2, in time linear in the text, so backreferences and ` +
          'lookaround are not available (write \\x{e9}, not \\u00e9, for a code point)',
      };
    return { problem: `it is not a JSON Schema 2020-12 this server can enforce: ${(error as Error).message}` };
  } finally {
    // Ajv keeps every schema it compiled; a long-running server compiles each plan and publish anew.
    ajv.removeSchema(schema);
  }
  return { validate: (value) => (check(value) ? [] : toIssues(check.errors ?? [], value)) };
}

/** A JSON Pointer (`/lines/0/amount`) as the agent API names a field (`lines.0.amount`). */
function pathOf(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}

const named = (path: readonly string[]) => path.join('.') || '(body)';

function oneOf(values: readonly unknown[]): string {
  const shown = values
    .slice(0, 8)
    .map((value) => JSON.stringify(value))
    .join(', ');
  return values.length > 8 ? `one of ${values.length} allowed values (${shown}, …)` : `one of ${shown}`;
}

/** What a schema wants, in words: its enum, else its type. */
function wanted(schema: unknown): string {
  if (schema === null || typeof schema !== 'object') return 'a value';
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node.enum)) return oneOf(node.enum);
  if ('const' in node) return oneOf([node.const]);
  if (Array.isArray(node.type)) return node.type.join(' or ');
  return typeof node.type === 'string' ? node.type : 'a value';
}

const BOUNDS: Record<string, { code: string; words: (limit: number) => string }> = {
  minimum: { code: 'too_small', words: (limit) => `a number at least ${limit}` },
  exclusiveMinimum: { code: 'too_small', words: (limit) => `a number more than ${limit}` },
  maximum: { code: 'too_big', words: (limit) => `a number at most ${limit}` },
  exclusiveMaximum: { code: 'too_big', words: (limit) => `a number less than ${limit}` },
  minLength: { code: 'too_small', words: (limit) => `a string of at least ${counted(limit, 'character')}` },
  maxLength: { code: 'too_big', words: (limit) => `a string of at most ${counted(limit, 'character')}` },
  minItems: { code: 'too_small', words: (limit) => `an array of at least ${counted(limit, 'item')}` },
  maxItems: { code: 'too_big', words: (limit) => `an array of at most ${counted(limit, 'item')}` },
  minProperties: { code: 'too_small', words: (limit) => `an object of at least ${counted(limit, 'field')}` },
  maxProperties: { code: 'too_big', words: (limit) => `an object of at most ${counted(limit, 'field')}` },
};

/** One Ajv error as the agent API's issue, with the codes and words zod's issues have (lib/input/field-issues.ts). */
function toIssue(error: ErrorObject, input: unknown): FieldIssue {
  const path = pathOf(error.instancePath);
  const received = valueAt(input, path);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      return unknownFieldIssue(named([...path, name]), valueAt(input, [...path, name]));
    }
    case 'required': {
      const name = String(params.missingProperty);
      const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
      return fieldIssue(named([...path, name]), 'required', wanted(properties?.[name]), undefined);
    }
    case 'type':
      return fieldIssue(named(path), 'invalid_type', wanted({ type: params.type }), received);
    case 'enum':
    case 'const':
      return fieldIssue(named(path), 'invalid_value', wanted(error.parentSchema), received);
    case 'pattern':
      return fieldIssue(named(path), 'invalid_format', `text matching /${String(params.pattern)}/`, received);
    case 'format':
      return fieldIssue(named(path), 'invalid_format', String(params.format), received);
    case 'multipleOf':
      return fieldIssue(named(path), 'not_multiple_of', `a multiple of ${String(params.multipleOf)}`, received);
    default: {
      const bound = BOUNDS[error.keyword];
      if (bound) return fieldIssue(named(path), bound.code, bound.words(Number(params.limit)), received);
      return fieldIssue(named(path), `invalid_${error.keyword}`, 'a valid value', received);
    }
  }
}

function toIssues(errors: readonly ErrorObject[], input: unknown): FieldIssue[] {
  // A value outside an enum (or const) is said once, with the allowed values: not also as the wrong type.
  const listed = new Set(
    errors.filter((error) => error.keyword === 'enum' || error.keyword === 'const').map((error) => error.instancePath),
  );
  const issues = errors
    .filter((error) => !(error.keyword === 'type' && listed.has(error.instancePath)))
    .map((error) => toIssue(error, input));
  // A union's branches can report the same issue more than once.
  return issues.filter((issue, index) => issues.findIndex((other) => other.message === issue.message) === index);
}
