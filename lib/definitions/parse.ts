import { type JsonSchema, lintArgumentSchema } from '@/lib/contracts/lint';
import { toFieldIssues } from '@/lib/input/field-issues';
import { type CelVariable, type CompiledExpression, compileExpression } from './cel';
import { openPlaces } from './closed';
import { type Definition, type DefinitionContract, definitionSchema } from './document';
import { compileSchema, type Validator } from './validate-args';

/**
 * A definition document (JSON text) to a definition every part of which is checked and compiled,
 * or every problem with it. JSON only: no YAML parser is among the project's dependencies.
 */

/** One problem: `path` as the agent API names fields (`rules.0.require`), `message` naming the place in words. */
export type DefinitionProblem = { path: string; message: string };

/** A contract version's schemas as validators. */
export type CompiledContract = DefinitionContract & { validateArgs: Validator; validateReceipt: Validator };

export type ParsedDefinition = {
  document: Definition;
  contracts: CompiledContract[];
  rules: { code: string; message: string; require: CompiledExpression }[];
  authority: CompiledExpression;
  receiptMatches: CompiledExpression[];
  risk: { high?: CompiledExpression; medium?: CompiledExpression };
  limit?: CompiledExpression;
};

export type ParseResult =
  | { ok: true; definition: ParsedDefinition; warnings: string[] }
  | { ok: false; problems: DefinitionProblem[]; warnings: string[] };

/** What each place's expressions may read (docs/actions.md). The authority never reads the arguments. */
export const PLACES = {
  rule: ['args', 'facts', 'open', 'agent', 'now'],
  authority: ['agent', 'facts'],
  receiptMatches: ['args', 'facts', 'receipt'],
  risk: ['args', 'facts'],
  limit: ['args', 'facts', 'open'],
} as const satisfies Record<string, readonly CelVariable[]>;

/**
 * Findings of the contracts lint that hold for a receipt too: an executor writes it, no model, so
 * what a model's runtime drops or refuses is not about it.
 */
const RECEIPT_LINT = new Set(['root_not_object', 'unsatisfiable']);

export function parseDefinition(text: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    return {
      ok: false,
      problems: [{ path: '(document)', message: `The document is not JSON: ${(error as Error).message}.` }],
      warnings: [],
    };
  }
  return checkDefinition(value);
}

/** A JSON value as a definition: its shape, then what needs more than a shape. */
export function checkDefinition(value: unknown): ParseResult {
  const shaped = definitionSchema.safeParse(value);
  if (!shaped.success) {
    const problems = toFieldIssues(shaped.error, value, definitionSchema).map((issue) => ({
      path: issue.field,
      message: issue.message.replace(' of this contract', ' of a definition'),
    }));
    return { ok: false, problems, warnings: [] };
  }
  return new Checker(shaped.data).result();
}

type Arguments = { names: Set<string>; integers: Set<string>; required: Set<string> };

/** A contract version's top-level arguments: their names, the integer ones, the required ones. */
function argumentsOf(contract: DefinitionContract): Arguments {
  const properties = (contract.args.properties ?? {}) as Record<string, { type?: unknown }>;
  const names = new Set(Object.keys(properties));
  const integers = new Set([...names].filter((name) => properties[name]?.type === 'integer'));
  const required = new Set(Array.isArray(contract.args.required) ? contract.args.required.map(String) : []);
  return { names, integers, required };
}

class Checker {
  private readonly problems: DefinitionProblem[] = [];
  private readonly warnings: string[] = [];
  private readonly args: Arguments[];

  constructor(private readonly document: Definition) {
    this.args = document.contracts.map(argumentsOf);
  }

  private problem(path: string, message: string) {
    this.problems.push({ path, message });
  }

  private compile(path: string, words: string, source: string, place: keyof typeof PLACES) {
    const compiled = compileExpression(source, PLACES[place]);
    if ('problem' in compiled) {
      this.problem(path, `${words}: ${compiled.problem}.`);
      return undefined;
    }
    return compiled.expression;
  }

  /** An argument every contract version has (optionally: as a required integer), else a problem. */
  private argument(path: string, words: string, name: string, integer = false) {
    for (const [index, args] of this.args.entries()) {
      const version = this.document.contracts[index]!.version;
      if (!args.names.has(name)) this.problem(path, `${words}: "${name}" is no argument of contract v${version}.`);
      else if (integer && !(args.integers.has(name) && args.required.has(name)))
        this.problem(path, `${words}: "${name}" is no required integer argument of contract v${version}.`);
    }
  }

  private contracts(): CompiledContract[] {
    const versions = this.document.contracts.map((contract) => contract.version);
    versions.forEach((version, index) => {
      if (versions.indexOf(version) !== index)
        this.problem(`contracts.${index}.version`, `Contract v${version} is defined twice.`);
    });
    const current = this.document.contracts.filter((contract) => contract.status === 'current').length;
    if (current !== 1)
      this.problem(
        'contracts',
        `Exactly one contract version is current; ${current === 0 ? 'none is' : `${current} are`}.`,
      );
    return this.document.contracts.flatMap((contract, index) => {
      const validateArgs = this.schema(
        `contracts.${index}.args`,
        `Contract v${contract.version}'s arguments`,
        contract.args,
        'args',
      );
      const validateReceipt = this.schema(
        `contracts.${index}.receipt`,
        `Contract v${contract.version}'s receipt`,
        contract.receipt,
        'receipt',
      );
      return validateArgs && validateReceipt ? [{ ...contract, validateArgs, validateReceipt }] : [];
    });
  }

  /** A schema closed at every depth, linted, and compiled; a validator when all three pass. */
  private schema(path: string, words: string, schema: Record<string, unknown>, kind: 'args' | 'receipt') {
    const before = this.problems.length;
    for (const place of openPlaces(schema)) this.problem(path, `${words}, at ${place.path}: ${place.message}.`);
    // The closedness check above is the stricter form of the lint's open_object: one problem per place, not two.
    for (const finding of lintArgumentSchema(schema as JsonSchema)) {
      if (finding.code === 'open_object') continue;
      const line = `${words}, at ${finding.path}: ${finding.message}`;
      if (finding.severity === 'error' && (kind === 'args' || RECEIPT_LINT.has(finding.code)))
        this.problem(path, `${line}.`);
      else if (kind === 'args')
        this.warnings.push(`${line}${finding.runtimes.length > 0 ? ` [${finding.runtimes.join(', ')}]` : ''}.`);
    }
    const compiled = compileSchema(schema);
    if ('problem' in compiled) this.problem(path, `${words}: ${compiled.problem}.`);
    return this.problems.length === before && 'validate' in compiled ? compiled.validate : undefined;
  }

  private rules() {
    const codes = this.document.rules.map((rule) => rule.code);
    return this.document.rules.flatMap((rule, index) => {
      if (codes.indexOf(rule.code) !== index)
        this.problem(`rules.${index}.code`, `Rule ${rule.code} is defined twice.`);
      const require = this.compile(`rules.${index}.require`, `Rule ${rule.code}'s require`, rule.require, 'rule');
      return require ? [{ code: rule.code, message: rule.message, require }] : [];
    });
  }

  /** Every argument another key names: claims, the summary, editing, routing. */
  private namedArguments() {
    const { claims, summary, editing, defaultRules } = this.document;
    if (claims) this.argument('claims', 'Claims', claims, true);
    for (const [, name] of summary.template.matchAll(/\{([^{}]*)\}/g))
      this.argument('summary.template', 'The summary', name!);
    for (const [, name] of (this.document.approveLabel ?? '').matchAll(/\{([^{}]*)\}/g))
      this.argument('approveLabel', 'The approve label', name!);
    summary.money?.forEach((money, index) => {
      this.argument(`summary.money.${index}.amount`, "The summary's money", money.amount, true);
      this.argument(`summary.money.${index}.currency`, "The summary's money", money.currency);
    });
    editing?.locked.forEach((name, index) => this.argument(`editing.locked.${index}`, 'A locked field', name));
    editing?.money?.forEach((money, index) => {
      this.argument(`editing.money.${index}.amount`, "Editing's money", money.amount, true);
      this.argument(`editing.money.${index}.currency`, "Editing's money", money.currency);
    });
    if (editing?.limit) this.argument('editing.limit.field', 'The editing limit', editing.limit.field);
    defaultRules?.forEach((rule, index) => {
      if (rule.when) this.argument(`defaultRules.${index}.when.field`, `Default rule ${rule.id}`, rule.when.field);
    });
    const grants = this.document.authority.grants.map((grant) => grant.name);
    grants.forEach((name, index) => {
      if (grants.indexOf(name) !== index)
        this.problem(`authority.grants.${index}.name`, `The grant ${name} is defined twice.`);
    });
  }

  result(): ParseResult {
    const { document } = this;
    const contracts = this.contracts();
    const rules = this.rules();
    this.namedArguments();
    const authority = this.compile(
      'authority.require',
      "The authority's require",
      document.authority.require,
      'authority',
    );
    const receiptMatches = (document.receiptMatches ?? []).map((source, index) =>
      this.compile(`receiptMatches.${index}`, `Receipt match ${index + 1}`, source, 'receiptMatches'),
    );
    const risk = {
      high: document.risk?.high ? this.compile('risk.high', 'High risk', document.risk.high, 'risk') : undefined,
      medium: document.risk?.medium
        ? this.compile('risk.medium', 'Medium risk', document.risk.medium, 'risk')
        : undefined,
    };
    const limit = document.editing?.limit
      ? this.compile('editing.limit.max', "The editing limit's max", document.editing.limit.max, 'limit')
      : undefined;
    if (this.problems.length > 0 || !authority) return { ok: false, problems: this.problems, warnings: this.warnings };
    return {
      ok: true,
      warnings: this.warnings,
      definition: {
        document,
        contracts,
        rules,
        authority,
        receiptMatches: receiptMatches.filter((expression) => expression !== undefined),
        risk: {
          ...(risk.high ? { high: risk.high } : {}),
          ...(risk.medium ? { medium: risk.medium } : {}),
        },
        ...(limit ? { limit } : {}),
      },
    };
  }
}
