/**
 * Lints a contract version's published JSON Schema against what tool-calling runtimes enforce when
 * they constrain a model's arguments in strict mode. A keyword the runtime drops is documentation
 * to the model, not a constraint: Countersign still enforces it at intake, but the model learns of
 * it only from a 422 and a repair. Errors are schemas a strict runtime refuses, that no value
 * satisfies, or whose rule the model cannot see at all; warnings are what it drops or handles badly.
 */

export type JsonSchema = boolean | { [keyword: string]: unknown };
export type LintSeverity = 'error' | 'warning';
export type LintCode =
  | 'root_not_object'
  | 'open_object'
  | 'optional_without_default'
  | 'conditional'
  | 'cross_field'
  | 'union'
  | 'unsupported_keyword'
  | 'too_deep'
  | 'nested'
  | 'unbounded_string'
  | 'dropped_keyword'
  | 'enum_too_large'
  | 'untyped'
  | 'unsatisfiable';

export type LintFinding = {
  severity: LintSeverity;
  code: LintCode;
  /** Where in the arguments: `sku`, `lines[].amount`, or `(root)`. */
  path: string;
  message: string;
  /** The runtimes the finding is about; empty when it holds for every runtime. */
  runtimes: RuntimeName[];
};

/**
 * What each runtime's strict mode does with a keyword (from its published schema subset):
 * `drops` are accepted but not enforced while generating; `refuses` make the schema invalid there.
 */
export const RUNTIMES = {
  'openai-strict': {
    label: 'OpenAI structured outputs (strict)',
    drops: [
      'minLength',
      'maxLength',
      'minProperties',
      'maxProperties',
      'uniqueItems',
      'contains',
      'minContains',
      'maxContains',
      'unevaluatedProperties',
    ],
    refuses: [
      'allOf',
      'oneOf',
      'not',
      'if',
      'then',
      'else',
      'dependentRequired',
      'dependentSchemas',
      'dependencies',
      'patternProperties',
      'propertyNames',
    ],
    formats: ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'],
    maxDepth: 10,
    maxEnum: 1000,
  },
  'anthropic-strict': {
    label: 'Anthropic strict tool use',
    drops: [
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'exclusiveMaximum',
      'multipleOf',
      'minLength',
      'maxLength',
      'maxItems',
      'minProperties',
      'maxProperties',
      'uniqueItems',
      'contains',
    ],
    refuses: [
      'not',
      'if',
      'then',
      'else',
      'dependentRequired',
      'dependentSchemas',
      'dependencies',
      'patternProperties',
      'propertyNames',
    ],
    formats: ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid'],
    maxDepth: Infinity,
    maxEnum: Infinity,
  },
} as const;
export type RuntimeName = keyof typeof RUNTIMES;
const RUNTIME_NAMES = Object.keys(RUNTIMES) as RuntimeName[];

/** Object levels below the arguments themselves that a contract needs before it is "deeper than needed". */
const NEEDED_DEPTH = 2;
const CONDITIONAL = ['if', 'then', 'else'];
const CROSS_FIELD = ['dependentRequired', 'dependentSchemas', 'dependencies'];
const UNIONS = ['anyOf', 'oneOf', 'allOf'];

type Node = { [keyword: string]: unknown };
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
const typesOf = (node: Node): string[] =>
  Array.isArray(node.type)
    ? node.type.filter((t): t is string => typeof t === 'string')
    : typeof node.type === 'string'
      ? [node.type]
      : [];
const field = (path: string, name: string) => (path === '(root)' ? name : `${path}.${name}`);

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
const fitsType = (value: unknown, types: string[]) =>
  types.length === 0 || types.includes(jsonType(value)) || (types.includes('number') && typeof value === 'number');

class Linter {
  readonly findings: LintFinding[] = [];

  add(severity: LintSeverity, code: LintCode, path: string, message: string, runtimes: RuntimeName[] = []) {
    this.findings.push({ severity, code, path, message, runtimes });
  }

  /** What runtimes drop or refuse of the keywords this node uses. */
  private keywords(node: Node, path: string) {
    for (const keyword of Object.keys(node)) {
      if (CONDITIONAL.includes(keyword) || CROSS_FIELD.includes(keyword) || UNIONS.includes(keyword)) continue;
      const refusing = RUNTIME_NAMES.filter((name) => (RUNTIMES[name].refuses as readonly string[]).includes(keyword));
      if (refusing.length > 0) {
        this.add(
          'error',
          'unsupported_keyword',
          path,
          `"${keyword}" makes the schema invalid in strict mode; express it with types, enums and bounds, or ` +
            `as a business rule`,
          refusing,
        );
        continue;
      }
      const dropping = RUNTIME_NAMES.filter((name) => (RUNTIMES[name].drops as readonly string[]).includes(keyword));
      if (dropping.length > 0) {
        this.add(
          'warning',
          'dropped_keyword',
          path,
          `"${keyword}" is not enforced while the model writes the arguments; only intake enforces it (a 422 ` +
            `and a repair)`,
          dropping,
        );
      }
    }
    if (typeof node.format === 'string') {
      const format = node.format;
      const dropping = RUNTIME_NAMES.filter((name) => !(RUNTIMES[name].formats as readonly string[]).includes(format));
      if (dropping.length > 0)
        this.add(
          'warning',
          'dropped_keyword',
          path,
          `format "${format}" is not enforced while the model writes the arguments`,
          dropping,
        );
    }
  }

  private structure(node: Node, path: string) {
    if (CONDITIONAL.some((keyword) => keyword in node)) {
      this.add(
        'error',
        'conditional',
        path,
        'a conditional subschema (if/then/else) is invisible to strict runtimes: split the action or its ' +
          'versions, or check it as a business rule',
      );
    }
    if (CROSS_FIELD.some((keyword) => keyword in node)) {
      this.add(
        'error',
        'cross_field',
        path,
        'a cross-field dependency is not enforced by any strict runtime: make the fields one object that is ' +
          'always required, or check it as a business rule',
      );
    }
    if (Array.isArray(node.oneOf) || Array.isArray(node.allOf)) {
      this.add(
        'error',
        'union',
        path,
        `"${Array.isArray(node.oneOf) ? 'oneOf' : 'allOf'}" is refused in strict mode; use one closed object ` +
          `(or an enum of kinds)`,
        ['openai-strict'],
      );
    }
    if (Array.isArray(node.anyOf)) {
      this.add(
        'warning',
        'union',
        path,
        'a union (anyOf) is handled badly by models: they mix the branches; prefer one closed object with an ' +
          'enum that says which kind',
      );
    }
  }

  private bounds(node: Node, path: string, types: string[]) {
    const unsatisfiable = (why: string) => this.add('error', 'unsatisfiable', path, `no value satisfies it: ${why}`);
    if (Array.isArray(node.enum)) {
      if (node.enum.length === 0) unsatisfiable('the enum is empty');
      else if (!node.enum.some((value) => fitsType(value, types)))
        unsatisfiable(`no enum value is of type ${types.join(' or ')}`);
      for (const name of RUNTIME_NAMES) {
        if (node.enum.length > RUNTIMES[name].maxEnum)
          this.add(
            'error',
            'enum_too_large',
            path,
            `${node.enum.length} enum values; at most ${RUNTIMES[name].maxEnum}`,
            [name],
          );
      }
    }
    if ('const' in node && !fitsType(node.const, types)) unsatisfiable(`const is not of type ${types.join(' or ')}`);
    const [minLength, maxLength] = [num(node.minLength), num(node.maxLength)];
    if (minLength !== undefined && maxLength !== undefined && minLength > maxLength)
      unsatisfiable(`minLength ${minLength} > maxLength ${maxLength}`);
    if (typeof node.pattern === 'string') {
      try {
        new RegExp(node.pattern, 'u');
      } catch {
        unsatisfiable('the pattern is not a valid regular expression');
      }
    }
    const low = num(node.exclusiveMinimum) ?? num(node.minimum);
    const high = num(node.exclusiveMaximum) ?? num(node.maximum);
    if (low !== undefined && high !== undefined) {
      const open = num(node.exclusiveMinimum) !== undefined || num(node.exclusiveMaximum) !== undefined;
      if (low > high || (open && low === high)) unsatisfiable(`the range ${low}…${high} is empty`);
      else if (types.length > 0 && types.every((t) => t === 'integer')) {
        const first = num(node.exclusiveMinimum) !== undefined ? Math.floor(low) + 1 : Math.ceil(low);
        const last = num(node.exclusiveMaximum) !== undefined ? Math.ceil(high) - 1 : Math.floor(high);
        if (first > last) unsatisfiable(`no integer lies in ${low}…${high}`);
      }
    }
    const [minItems, maxItems] = [num(node.minItems), num(node.maxItems)];
    if (minItems !== undefined && maxItems !== undefined && minItems > maxItems)
      unsatisfiable(`minItems ${minItems} > maxItems ${maxItems}`);
    if (minItems !== undefined && minItems > 1)
      this.add(
        'warning',
        'dropped_keyword',
        path,
        `minItems ${minItems} is not enforced while the model writes the arguments`,
        ['anthropic-strict'],
      );
    if (
      types.includes('string') &&
      !['maxLength', 'pattern', 'enum', 'const', 'format'].some((keyword) => keyword in node)
    ) {
      this.add(
        'warning',
        'unbounded_string',
        path,
        'an unbounded string: give it a maxLength, a pattern or an enum, so a model cannot send a page where a ' +
          'word belongs',
      );
    }
  }

  private object(node: Node, path: string, depth: number) {
    for (const name of RUNTIME_NAMES) {
      if (depth > RUNTIMES[name].maxDepth)
        this.add('error', 'too_deep', path, `objects nested ${depth} deep; at most ${RUNTIMES[name].maxDepth}`, [name]);
    }
    if (depth === NEEDED_DEPTH + 1)
      this.add(
        'warning',
        'nested',
        path,
        `nesting deeper than needed (${depth} levels): flatten it, models fill flat arguments more reliably`,
      );
    if (node.additionalProperties !== false) {
      this.add(
        'error',
        'open_object',
        path,
        'the object is open: strict runtimes need "additionalProperties": false on every object, and Countersign ' +
          'refuses unknown fields anyway',
      );
    }
    const properties = isNode(node.properties) ? node.properties : {};
    const required = Array.isArray(node.required)
      ? node.required.filter((name): name is string => typeof name === 'string')
      : [];
    for (const name of required) {
      if (!(name in properties) && node.additionalProperties === false)
        this.add(
          'error',
          'unsatisfiable',
          field(path, name),
          `no value satisfies it: "${name}" is required but the closed object does not define it`,
        );
    }
    for (const [name, child] of Object.entries(properties)) {
      if (!required.includes(name) && !(isNode(child) && 'default' in child)) {
        this.add(
          'error',
          'optional_without_default',
          field(path, name),
          'an optional field without its default: strict runtimes make every field required, so the model must ' +
            'invent a value; make it required, or give it a default',
        );
      }
      this.walk(child as JsonSchema, field(path, name), depth);
    }
  }

  walk(schema: JsonSchema, path: string, depth: number) {
    if (schema === false) return this.add('error', 'unsatisfiable', path, 'no value satisfies it: the schema is false');
    if (schema === true || !isNode(schema))
      return this.add('warning', 'untyped', path, 'accepts any value of any kind: give it a type');
    const types = typesOf(schema);
    if (types.length === 0 && !['enum', 'const', 'anyOf', 'oneOf', 'allOf'].some((keyword) => keyword in schema))
      this.add('warning', 'untyped', path, 'no type: the model may send any kind of value; give it a type');
    this.keywords(schema, path);
    this.structure(schema, path);
    this.bounds(schema, path, types);
    if (types.includes('object') || isNode(schema.properties)) this.object(schema, path, depth + 1);
    if (isNode(schema.items) || typeof schema.items === 'boolean')
      this.walk(schema.items as JsonSchema, `${path}[]`, depth);
    for (const keyword of UNIONS) {
      if (Array.isArray(schema[keyword]))
        (schema[keyword] as JsonSchema[]).forEach((branch, index) =>
          this.walk(branch, `${path}|${keyword}[${index}]`, depth),
        );
    }
  }
}

/** Every finding of an action's argument schema (as `GET /api/v1/contracts` publishes it), errors first. */
export function lintArgumentSchema(schema: JsonSchema): LintFinding[] {
  const linter = new Linter();
  if (!isNode(schema) || !typesOf(schema).includes('object')) {
    linter.add(
      'error',
      'root_not_object',
      '(root)',
      'the arguments must be one object: tool calls carry named arguments',
    );
  }
  linter.walk(schema, '(root)', 0);
  return [...linter.findings].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

export type VersionLint = {
  action: string;
  version: number;
  status: string;
  errors: number;
  warnings: number;
  findings: LintFinding[];
};

/** Every version of every action (as `contractDocuments` publishes them), linted. */
export function lintContracts(documents: {
  actions: { action: string; versions: { version: number; status: string; input: unknown }[] }[];
}): VersionLint[] {
  return documents.actions.flatMap(({ action, versions }) =>
    versions.map(({ version, status, input }) => {
      const findings = lintArgumentSchema(input as JsonSchema);
      const errors = findings.filter((finding) => finding.severity === 'error').length;
      return { action, version, status, errors, warnings: findings.length - errors, findings };
    }),
  );
}
