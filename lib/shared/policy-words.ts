import type { Routing } from '@/db/schema';
import type { RoutingRule } from '@/lib/routing-rules';

/**
 * Routing policies in words, for the editor, the read-only view and the diff after a save. Client-safe: types only from
 * the server side.
 */

/** How a bound's value reads: as stored (minor units), or in major units beside a currency (`boundFormat`). */
export type BoundFormat = (field: string, value: number) => string;

const asStored: BoundFormat = (_field, value) => String(value);

export function conditionInWords(when: RoutingRule['when'], format: BoundFormat = asStored): string {
  if (!when) return 'Always';
  if (when.below !== undefined) return `When ${when.field} is below ${format(when.field, when.below)}`;
  const sum = when.aggregate
    ? ` summed with this action's open and executed proposals on the same resource in the ` +
      `last ${when.aggregate.windowHours} h`
    : '';
  return `When ${when.field}${sum} is above ${when.above === undefined ? '?' : format(when.field, when.above)}`;
}

export function outcomeInWords(rule: Pick<Routing, 'outcome' | 'approvals' | 'role'>): string {
  if (rule.outcome === 'auto_approve') return 'auto-approve';
  if (rule.outcome === 'deny') return 'deny';
  return `needs ${rule.approvals} distinct ${rule.role}${rule.approvals === 1 ? '' : 's'}`;
}

export function ruleInWords(rule: RoutingRule, format: BoundFormat = asStored): string {
  return `${conditionInWords(rule.when, format)} → ${outcomeInWords(rule)}`;
}

/**
 * The bounds a rule answers for: its own, or for a rule with no bound (it takes what the rules before it leave) theirs.
 */
function boundsOf(rule: RoutingRule, earlier: RoutingRule[]): NonNullable<RoutingRule['when']>[] {
  const bounded = (each: RoutingRule) =>
    each.when && (each.when.above ?? each.when.below) !== undefined ? [each.when] : [];
  return rule.when ? bounded(rule) : earlier.flatMap(bounded);
}

/** "up to 50.00 EUR" / "3 or more": what a bound leaves to the rules after it. */
function complementWords(when: NonNullable<RoutingRule['when']>, format: BoundFormat): string {
  const sum = when.aggregate ? ` summed per resource over ${when.aggregate.windowHours} h` : '';
  return when.below !== undefined
    ? `${when.field}${sum} ${format(when.field, when.below)} or more`
    : `${when.field}${sum} up to ${format(when.field, when.above ?? 0)}`;
}

/**
 * A short description written from the rule's terms ("amountMinor summed per resource over 24 h
 * above 50.00 EUR: needs 2 distinct approvers"); a rule with no bound after bounded ones describes
 * what they leave ("Every other proposal (amountMinor … up to 50.00 EUR): needs 1 distinct approver").
 */
export function describeRule(rule: RoutingRule, format: BoundFormat = asStored, earlier: RoutingRule[] = []): string {
  const outcome = outcomeInWords(rule);
  if (!rule.when) {
    const left = boundsOf(rule, earlier).map((when) => complementWords(when, format));
    return left.length === 0
      ? `Every proposal: ${outcome}`
      : `Every other proposal (${left.join(' and ')}): ${outcome}`;
  }
  const sum = rule.when.aggregate ? ` summed per resource over ${rule.when.aggregate.windowHours} h` : '';
  return `${rule.when.field}${sum} ${boundWords(rule.when, format)}: ${outcome}`;
}

/**
 * Where `text` names numbers (hours and approver counts aside) none of which is one of the bounds' ("100.00" or "100"
 * on 10000 minor units of EUR): those numbers, and the bounds as shown.
 */
function namedAmountMismatch(
  text: string,
  rule: RoutingRule,
  earlier: RoutingRule[],
  format: BoundFormat,
): { named: string; shown: string } | null {
  const bounds = boundsOf(rule, earlier);
  if (bounds.length === 0) return null;
  const ignored = new Set([
    String(rule.approvals),
    ...bounds.flatMap((when) => (when.aggregate ? [String(when.aggregate.windowHours)] : [])),
  ]);
  const named = (text.match(/\d+(?:[.,]\d+)*/g) ?? []).filter((number) => !ignored.has(number));
  const accepted = new Set<string>();
  const shown: string[] = [];
  for (const when of bounds) {
    const value = (when.above ?? when.below)!;
    const major = format(when.field, value);
    const number = major.split(' ')[0]!;
    shown.push(major);
    for (const each of [String(value), number, number.replace(/\.0+$/, '')]) accepted.add(each);
  }
  if (named.length === 0 || named.some((number) => accepted.has(number.replaceAll(',', '')))) return null;
  return { named: named.join(', '), shown: shown.join(' and ') };
}

/**
 * Where a rule's description contradicts its bound: the numbers it names (its window's hours and
 * approver count aside) include neither the bound as stored nor as `format` writes it ("100.00" on
 * a bound of 5000 minor units). A rule with no bound is read against the bounds of the rules
 * before it (`earlier`), since it takes what they leave. Null when it names no number, or a bound's.
 */
export function descriptionMismatch(
  rule: RoutingRule,
  format: BoundFormat = asStored,
  earlier: RoutingRule[] = [],
): string | null {
  const found = namedAmountMismatch(rule.description, rule, earlier, format);
  if (!found) return null;
  return rule.when
    ? `The description says ${found.named}, but the bound is ${found.shown}.`
    : `The description says ${found.named}, but the rules before it are bounded at ${found.shown}.`;
}

/**
 * Where a rule's id names an amount that is not its bound (`refunds-over-100` on 5000 minor units). Ids are never
 * renamed: past proposals cite them.
 */
export function idMismatch(
  rule: RoutingRule,
  format: BoundFormat = asStored,
  earlier: RoutingRule[] = [],
): string | null {
  // "rule-3", the editor's name for a new rule, counts rules and names no amount.
  const found = /^rule[-_]\d+$/.test(rule.id)
    ? null
    : namedAmountMismatch(rule.id.replaceAll(/[-_]/g, ' '), rule, earlier, format);
  if (!found) return null;
  const bound = rule.when ? `the bound is ${found.shown}` : `the rules before it are bounded at ${found.shown}`;
  return (
    `The id ${rule.id} names ${found.named}, but ${bound}. Ids are not renamed, since past proposals cite ` +
    `them: add a rule with a new id and remove this one to change it.`
  );
}

/**
 * Each rule whose description or id names an amount its bounds no longer have, in order: the plan's
 * warnings. With `otherReadings` (the bound in other currencies' decimals, when no one currency is
 * known) a number any reading accepts is no mismatch; the message words the bound as `format` does.
 */
export function ruleWarnings(
  rules: RoutingRule[],
  format: BoundFormat = asStored,
  otherReadings: BoundFormat[] = [],
): { ruleId: string; message: string }[] {
  return rules.flatMap((rule, index) => {
    const earlier = rules.slice(0, index);
    const wrong = (check: typeof descriptionMismatch) =>
      otherReadings.some((reading) => check(rule, reading, earlier) === null) ? null : check(rule, format, earlier);
    return [wrong(descriptionMismatch), wrong(idMismatch)].flatMap((message) =>
      message ? [{ ruleId: rule.id, message: `Rule ${rule.id}: ${message}` }] : [],
    );
  });
}

export type RuleDiffLine = {
  kind: 'added' | 'removed' | 'changed' | 'moved' | 'same';
  id: string;
  before?: string;
  after?: string;
};

const full = (rule: RoutingRule) => `${ruleInWords(rule)} (“${rule.description}”)`;

/** Rules before and after, matched by id, in the new order; removed rules last. */
export function diffRules(before: RoutingRule[], after: RoutingRule[]): RuleDiffLine[] {
  const lines: RuleDiffLine[] = after.map((rule, index) => {
    const old = before.find((each) => each.id === rule.id);
    if (!old) return { kind: 'added', id: rule.id, after: full(rule) };
    if (full(old) !== full(rule)) return { kind: 'changed', id: rule.id, before: full(old), after: full(rule) };
    return {
      kind: before.indexOf(old) === index ? 'same' : 'moved',
      id: rule.id,
      before: full(old),
      after: full(rule),
    };
  });
  for (const old of before)
    if (!after.some((rule) => rule.id === old.id)) lines.push({ kind: 'removed', id: old.id, before: full(old) });
  return lines;
}

/** "above 10000" / "below 3": a bound's direction and value, as `format` writes it. */
function boundWords(when: NonNullable<RoutingRule['when']>, format: BoundFormat): string {
  return when.below !== undefined
    ? `below ${format(when.field, when.below)}`
    : `above ${when.above === undefined ? '?' : format(when.field, when.above)}`;
}

/** The rule as it was with only the bound's value changed: then the sentence says "(was above …)". */
function onlyBoundMoved(before: RoutingRule, after: RoutingRule): boolean {
  if (!before.when || !after.when || (before.when.below === undefined) !== (after.when.below === undefined))
    return false;
  const value = after.when.below ?? after.when.above;
  const moved: RoutingRule = {
    ...before,
    description: after.description,
    when: { ...before.when, ...(before.when.below !== undefined ? { below: value } : { above: value }) },
  };
  return ruleInWords(moved) === ruleInWords(after);
}

/**
 * One changed rule in sentences: its new terms (only the old bound when nothing else moved), and its new description.
 */
function changedRuleWords(before: RoutingRule, after: RoutingRule, format: BoundFormat): string[] {
  const words: string[] = [];
  if (ruleInWords(before) !== ruleInWords(after)) {
    words.push(
      onlyBoundMoved(before, after)
        ? `Rule ${after.id}: ${ruleInWords(after, format)} (was ${boundWords(before.when!, format)}).`
        : `Rule ${after.id} becomes: ${ruleInWords(after, format)} (was: ${ruleInWords(before, format)}).`,
    );
  }
  if (before.description !== after.description)
    words.push(`Rule ${after.id} is described as “${after.description}” (was “${before.description}”).`);
  return words;
}

type Terms = { rules: RoutingRule[]; expiryHours: number };

/**
 * A policy's change as sentences, one per rule that changed (matched by id) and one for the expiry: the plan's "change
 * in words".
 */
export function changesInWords(before: Terms, after: Terms, format: BoundFormat = asStored): string[] {
  const position = (rules: RoutingRule[], id: string) => rules.findIndex((rule) => rule.id === id) + 1;
  const words = diffRules(before.rules, after.rules).flatMap((line): string[] => {
    const old = before.rules.find((rule) => rule.id === line.id);
    const now = after.rules.find((rule) => rule.id === line.id);
    if (line.kind === 'added') return [`Adds rule ${line.id}: ${ruleInWords(now!, format)} (“${now!.description}”).`];
    if (line.kind === 'removed')
      return [`Removes rule ${line.id}: ${ruleInWords(old!, format)} (“${old!.description}”).`];
    const moved =
      position(before.rules, line.id) !== position(after.rules, line.id)
        ? [
            `Rule ${line.id} moves to ` +
              `position ${position(after.rules, line.id)} (was ${position(before.rules, line.id)}).`,
          ]
        : [];
    return [...(line.kind === 'changed' ? changedRuleWords(old!, now!, format) : []), ...moved];
  });
  if (before.expiryHours !== after.expiryHours)
    words.push(`Proposals expire after ${after.expiryHours} h (was ${before.expiryHours} h).`);
  return words;
}

/** A routing flip in words ("needs 1 distinct approver → needs 2 distinct approvers"). */
export function flipInWords(flip: {
  before: Pick<Routing, 'outcome' | 'approvals' | 'role'>;
  after: Pick<Routing, 'outcome' | 'approvals' | 'role'>;
}): string {
  return `${outcomeInWords(flip.before)} → ${outcomeInWords(flip.after)}`;
}

/** The backtest's flips counted by kind, in words, most frequent first. */
export function flipCounts(flips: Parameters<typeof flipInWords>[0][]): { words: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const flip of flips) counts.set(flipInWords(flip), (counts.get(flipInWords(flip)) ?? 0) + 1);
  return [...counts].map(([words, count]) => ({ words, count })).sort((a, b) => b.count - a.count);
}
