import type { Routing } from '@/db/schema';
import type { RoutingRule } from '@/lib/routing-rules';

/** Routing policies in words, for the editor, the read-only view and the diff after a save. Client-safe: types only from the server side. */

export function conditionInWords(when: RoutingRule['when']): string {
  if (!when) return 'Always';
  if (when.below !== undefined) return `When ${when.field} is below ${when.below}`;
  const sum = when.aggregate ? ` summed with this action's open and executed proposals on the same resource in the last ${when.aggregate.windowHours} h` : '';
  return `When ${when.field}${sum} is above ${when.above ?? '?'}`;
}

export function outcomeInWords(rule: Pick<Routing, 'outcome' | 'approvals' | 'role'>): string {
  if (rule.outcome === 'auto_approve') return 'auto-approve';
  if (rule.outcome === 'deny') return 'deny';
  return `needs ${rule.approvals} distinct ${rule.role}${rule.approvals === 1 ? '' : 's'}`;
}

export function ruleInWords(rule: RoutingRule): string {
  return `${conditionInWords(rule.when)} → ${outcomeInWords(rule)}`;
}

export type RuleDiffLine = { kind: 'added' | 'removed' | 'changed' | 'moved' | 'same'; id: string; before?: string; after?: string };

const full = (rule: RoutingRule) => `${ruleInWords(rule)} (“${rule.description}”)`;

/** Rules before and after, matched by id, in the new order; removed rules last. */
export function diffRules(before: RoutingRule[], after: RoutingRule[]): RuleDiffLine[] {
  const lines: RuleDiffLine[] = after.map((rule, index) => {
    const old = before.find((each) => each.id === rule.id);
    if (!old) return { kind: 'added', id: rule.id, after: full(rule) };
    if (full(old) !== full(rule)) return { kind: 'changed', id: rule.id, before: full(old), after: full(rule) };
    return { kind: before.indexOf(old) === index ? 'same' : 'moved', id: rule.id, before: full(old), after: full(rule) };
  });
  for (const old of before) if (!after.some((rule) => rule.id === old.id)) lines.push({ kind: 'removed', id: old.id, before: full(old) });
  return lines;
}

/** A policy's change as sentences, one per rule that changed (matched by id) and one for the expiry: the plan's "change in words". */
export function changesInWords(before: { rules: RoutingRule[]; expiryHours: number }, after: { rules: RoutingRule[]; expiryHours: number }): string[] {
  const words = diffRules(before.rules, after.rules).flatMap((line): string[] => {
    if (line.kind === 'added') return [`Adds rule ${line.id}: ${line.after}.`];
    if (line.kind === 'removed') return [`Removes rule ${line.id}: ${line.before}.`];
    if (line.kind === 'changed') return [`Rule ${line.id} becomes: ${line.after} (was: ${line.before}).`];
    if (line.kind === 'moved') return [`Rule ${line.id} moves to position ${after.rules.findIndex((rule) => rule.id === line.id) + 1} (was ${before.rules.findIndex((rule) => rule.id === line.id) + 1}).`];
    return [];
  });
  if (before.expiryHours !== after.expiryHours) words.push(`Proposals expire after ${after.expiryHours} h (was ${before.expiryHours} h).`);
  return words;
}

/** A routing flip in words ("needs 1 distinct approver → needs 2 distinct approvers"). */
export function flipInWords(flip: { before: Pick<Routing, 'outcome' | 'approvals' | 'role'>; after: Pick<Routing, 'outcome' | 'approvals' | 'role'> }): string {
  return `${outcomeInWords(flip.before)} → ${outcomeInWords(flip.after)}`;
}

/** The backtest's flips counted by kind, in words, most frequent first. */
export function flipCounts(flips: Parameters<typeof flipInWords>[0][]): { words: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const flip of flips) counts.set(flipInWords(flip), (counts.get(flipInWords(flip)) ?? 0) + 1);
  return [...counts].map(([words, count]) => ({ words, count })).sort((a, b) => b.count - a.count);
}
