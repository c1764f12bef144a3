import { type CelInput, type CelValue, celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';

/**
 * CEL (cel.dev) for action definitions: a definition's `require`, `receiptMatches`, risk and limit
 * expressions, evaluated by @bufbuild/cel (conformance-tested against cel-spec). Compiling parses
 * the expression and refuses names it could never resolve (a variable the expression's place does
 * not give, a function CEL's standard library does not have) and loops inside loops. `matches`
 * runs on RE2, linear in the text. @bufbuild/cel keeps its type
 * checker private, so a type error between values (`args.sku + 1`) shows at evaluation, where it
 * fails closed like every other error.
 */

/** What an expression may read, by where it stands in a definition. */
export type CelVariable = 'args' | 'facts' | 'open' | 'agent' | 'now' | 'receipt';

export type CompiledExpression = {
  source: string;
  /** The result, or undefined when evaluation errs (a missing field, a type mismatch, division by zero). */
  evaluate(context: CelContext): CelValue | undefined;
};

/** Variables as JSON-like values: plain objects, arrays, strings, numbers, booleans, null; `now` a Date. */
export type CelContext = Partial<Record<CelVariable, unknown>>;

const env = celEnv();

/** Calls the planner handles itself: they are no functions of the library's. */
const PLANNER_CALLS = new Set([
  '_[_]',
  '_[?_]',
  '_?._',
  '_?_:_',
  '_&&_',
  '_||_',
  '@not_strictly_false',
  '__not_strictly_false__',
]);

type Expr = ReturnType<typeof parse>['expr'];

const NESTED_LOOP =
  "a macro (all, exists, exists_one, map, filter) inside another's body takes time quadratic in the " +
  'arguments, which an agent sizes: have the resolver compute it as a fact';

/**
 * What the expression cannot be run for, each once, in the order it appears: a name nothing could
 * resolve, or a macro looping inside another's body (each expression stays linear in its input).
 */
function compileProblems(root: Expr, variables: readonly string[]): string[] {
  const found: string[] = [];
  const note = (problem: string) => {
    if (!found.includes(problem)) found.push(problem);
  };
  const visit = (expr: Expr | undefined, bound: readonly string[], inLoop: boolean): void => {
    if (!expr) return;
    const kind = expr.exprKind;
    switch (kind.case) {
      case 'identExpr':
        if (!bound.includes(kind.value.name))
          note(`"${kind.value.name}" is not a variable here (${variables.join(', ')} are)`);
        return;
      case 'selectExpr':
        return visit(kind.value.operand, bound, inLoop);
      case 'callExpr': {
        const { function: name, target, args } = kind.value;
        if (!PLANNER_CALLS.has(name) && !env.funcs.find(name)) note(`"${name}" is not a CEL function`);
        visit(target, bound, inLoop);
        for (const arg of args) visit(arg, bound, inLoop);
        return;
      }
      case 'listExpr':
        for (const element of kind.value.elements) visit(element, bound, inLoop);
        return;
      case 'structExpr':
        if (kind.value.messageName !== '') note(`"${kind.value.messageName}" is no type here: only maps and lists`);
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === 'mapKey') visit(entry.keyKind.value, bound, inLoop);
          visit(entry.value, bound, inLoop);
        }
        return;
      case 'comprehensionExpr': {
        if (inLoop) note(NESTED_LOOP);
        const { iterVar, iterVar2, accuVar, iterRange, accuInit, loopCondition, loopStep, result } = kind.value;
        visit(iterRange, bound, inLoop);
        visit(accuInit, bound, inLoop);
        const inner = [...bound, iterVar, accuVar, ...(iterVar2 ? [iterVar2] : [])];
        for (const part of [loopCondition, loopStep]) visit(part, inner, true);
        visit(result, inner, inLoop);
        return;
      }
      default:
        return;
    }
  };
  visit(root, variables, false);
  return found;
}

/**
 * An expression compiled for a place that gives `variables`, or the reason it cannot be (a syntax
 * error with its position, an unknown variable or function, a loop inside a loop).
 */
export function compileExpression(
  source: string,
  variables: readonly CelVariable[],
): { expression: CompiledExpression } | { problem: string } {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (error) {
    // "<input>:1:3: found + but expecting end of input" → "1:3: found + …"
    return { problem: `it does not parse: ${(error as Error).message.replace(/^<input>:/, '')}` };
  }
  const problems = compileProblems(parsed.expr, variables);
  if (problems.length > 0) return { problem: problems.join('; ') };
  const run = plan(env, parsed);
  return {
    expression: {
      source,
      evaluate(context) {
        try {
          const value = run(celInput(context, variables));
          return isCelError(value) ? undefined : value;
        } catch {
          return undefined;
        }
      },
    },
  };
}

/** Does it hold? Only a boolean true does: an error or any other value is a breach (fail closed). */
export function holds(expression: CompiledExpression, context: CelContext): boolean {
  return expression.evaluate(context) === true;
}

/** A numeric result as a JavaScript number, or undefined when it errs, is no number or exceeds 2^53. */
export function numberOf(expression: CompiledExpression, context: CelContext): number | undefined {
  const value = expression.evaluate(context);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * JSON as CEL reads it: a whole number is an `int` (so `args.quantity <= 4` and `+ 1` work as a
 * person expects), any other number a `double`, a Date a `timestamp`. A variable the place does not
 * give is not bound at all, so reading it is an error, never a default.
 */
function celInput(context: CelContext, variables: readonly CelVariable[]): Record<string, CelInput> {
  const bindings: Record<string, CelInput> = {};
  for (const name of variables) {
    if (context[name] !== undefined) bindings[name] = toCel(context[name]);
  }
  return bindings;
}

function toCel(value: unknown): CelInput {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (value instanceof Date) return timestampFromDate(value);
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object')
    return new Map(Object.entries(value).map(([key, inner]) => [key, toCel(inner)]));
  return value as CelInput;
}
