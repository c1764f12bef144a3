import { z } from 'zod';
import { acceptedVersions, findContract } from '@/lib/actions/registry';
import type { ActionModule } from '@/lib/actions/types';
import type { ErrorKey } from '@/lib/errors/codes';
import { Refusal } from '@/lib/errors/refusal';
import { type FieldIssue, toFieldIssues } from '@/lib/input/field-issues';
import type { RoutingRule } from '@/lib/routing-rules';

/**
 * The checks of a policy edit that need the action itself (its name is registered, each bound
 * names one of its numeric arguments), and 422 answers in intake's issue shape.
 */

/** The top-level arguments that are numbers in any accepted contract version: what a bound may name. */
export function numericFields(action: ActionModule): string[] {
  const fields = new Set<string>();
  for (const version of acceptedVersions(action)) {
    const contract = findContract(action, version);
    if (!contract) continue;
    const schema = contract.inputSchema as { properties?: Record<string, { type?: unknown }> };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (property.type === 'integer' || property.type === 'number') fields.add(name);
    }
  }
  return [...fields];
}

const issue = (field: string, code: string, expected: string, received: string, message: string): FieldIssue => ({
  field,
  code,
  expected,
  received,
  message,
});

/** The tenant's action (`actions`, as `tenantActions` reads them) named at `field`, or an issue saying none is. */
export function actionAt(
  actions: readonly ActionModule[],
  name: string,
  field: string,
): { action: ActionModule } | { issue: FieldIssue } {
  const action = actions.find((each) => each.name === name);
  if (action) return { action };
  return {
    issue: issue(
      field,
      'unknown_action',
      'an action of this tenant',
      `string of ${[...name].length} characters`,
      `"${field}" names no action this tenant has (shipped or declared).`,
    ),
  };
}

/** Each bound must name a numeric argument of the action (`prefix` is the rules' dotted path). */
export function boundIssues(action: ActionModule, rules: RoutingRule[], prefix: string): FieldIssue[] {
  const fields = numericFields(action);
  return rules.flatMap((rule, index) => {
    if (!rule.when || fields.includes(rule.when.field)) return [];
    const field = `${prefix}.${index}.when.field`;
    const expected = `one of ${fields.map((name) => JSON.stringify(name)).join(', ')}`;
    return [
      issue(
        field,
        'not_a_numeric_argument',
        expected,
        `"${rule.when.field}"`,
        `"${field}" must be ${expected}: a bound compares a numeric argument of ${action.name}.`,
      ),
    ];
  });
}

/** Zod issues as field issues, a custom check's own words kept (toFieldIssues words only built-in checks). */
export function policyIssues(error: z.ZodError, input: unknown, schema: z.ZodType): FieldIssue[] {
  return error.issues.flatMap((each) => {
    const [built] = toFieldIssues(new z.ZodError([each]), input, schema);
    if (each.code !== 'custom' || !built) return toFieldIssues(new z.ZodError([each]), input, schema);
    return [{ ...built, code: 'invalid_rule', expected: each.message, message: `"${built.field}": ${each.message}.` }];
  });
}

export function invalid(code: ErrorKey, message: string, issues: FieldIssue[]): Refusal {
  return new Refusal(code, message, { issues });
}
