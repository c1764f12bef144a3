import { holds } from './cel';
import type { ParsedDefinition } from './parse';

/** What a definition's rules read (docs/actions.md): everything the gates know of a candidate at intake. */
export type RuleContext = {
  args: Record<string, unknown>;
  /** What the resolver answered: JSON scalars. */
  facts: Record<string, string | number | boolean | null>;
  /** The resource's open proposals: how many, and the sum of the definition's `claims` argument over them. */
  open: { count: number; total: number };
  /** The proposing agent key: its id and its grants for this action. */
  agent: { id: string; grants: Record<string, string[]> };
  now: Date;
};

export type Breach = { code: string; message: string };

/**
 * The first of the definition's rules, in order, whose `require` does not hold, or none. A rule
 * whose expression errs or gives anything but true is breached: a rule fails closed.
 */
export function firstBreach(definition: Pick<ParsedDefinition, 'rules'>, context: RuleContext): Breach | undefined {
  const breached = definition.rules.find((rule) => !holds(rule.require, context));
  return breached ? { code: breached.code, message: breached.message } : undefined;
}
