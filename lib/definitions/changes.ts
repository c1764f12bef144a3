import { canonicalJson } from '@/lib/payload-hash';
import type { Definition, DefinitionContract } from './document';

/**
 * What publishing a definition would change against the tenant's current version, in words, with
 * the changes that break an agent named apart: an agent that sent valid arguments yesterday is
 * refused today. A contract version's arguments are compared with the same version's before.
 */
export type DefinitionChanges = { words: string[]; breaking: string[] };

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);
const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);
const typesOf = (node: Node): string[] =>
  Array.isArray(node.type) ? node.type.map(String) : typeof node.type === 'string' ? [node.type] : [];
const child = (path: string, name: string) => (path === '' ? name : `${path}.${name}`);
const shown = (path: string) => (path === '' ? 'the arguments' : `"${path}"`);
const ACCEPTED = new Set(['current', 'supported']);

/** Where a contract version's arguments accept less than before, at every depth. */
function narrowings(before: unknown, after: unknown, path: string, found: string[]): void {
  if (!isNode(before) || !isNode(after)) return;
  const [was, now] = [typesOf(before), typesOf(after)];
  if (was.length > 0 && !was.every((type) => now.includes(type) || (type === 'integer' && now.includes('number'))))
    found.push(`the type of ${shown(path)} changed from ${was.join(' or ')} to ${now.join(' or ') || 'any'}`);
  if (Array.isArray(after.enum)) {
    const allowed = after.enum.map((value) => canonicalJson(value));
    const dropped = Array.isArray(before.enum)
      ? before.enum.filter((value) => !allowed.includes(canonicalJson(value)))
      : undefined;
    if (dropped === undefined) found.push(`${shown(path)} is now limited to ${after.enum.length} value(s)`);
    else if (dropped.length > 0)
      found.push(
        `the enum of ${shown(path)} narrowed: ` +
          `${dropped.map((value) => JSON.stringify(value)).join(', ')} no longer accepted`,
      );
  }
  const [wasProperties, nowProperties] = [before.properties, after.properties];
  if (isNode(wasProperties)) {
    for (const name of Object.keys(wasProperties)) {
      if (!isNode(nowProperties) || !(name in nowProperties))
        found.push(`the field ${shown(child(path, name))} was removed`);
      else narrowings(wasProperties[name], nowProperties[name], child(path, name), found);
    }
  }
  const required = (node: Node) => (Array.isArray(node.required) ? node.required.map(String) : []);
  for (const name of required(after))
    if (!required(before).includes(name)) found.push(`the field ${shown(child(path, name))} was made required`);
  narrowings(before.items, after.items, `${path}[]`, found);
}

function contractChanges(before: DefinitionContract[], after: DefinitionContract[], changes: DefinitionChanges) {
  for (const old of before) {
    const now = after.find((contract) => contract.version === old.version);
    if (!now) {
      changes.words.push(`Contract v${old.version} is removed.`);
      if (ACCEPTED.has(old.status)) changes.breaking.push(`contract v${old.version} (${old.status}) is removed`);
      continue;
    }
    if (now.status !== old.status) {
      changes.words.push(`Contract v${old.version} goes from ${old.status} to ${now.status}.`);
      if (ACCEPTED.has(old.status) && !ACCEPTED.has(now.status))
        changes.breaking.push(`contract v${old.version} is no longer accepted (${now.status})`);
    }
    if (!same(old.args, now.args)) {
      changes.words.push(`Contract v${old.version}'s arguments change.`);
      const found: string[] = [];
      narrowings(old.args, now.args, '', found);
      changes.breaking.push(...found.map((words) => `contract v${old.version}: ${words}`));
    }
    if (!same(old.receipt, now.receipt)) changes.words.push(`Contract v${old.version}'s receipt changes.`);
  }
  for (const now of after)
    if (!before.some((contract) => contract.version === now.version))
      changes.words.push(`Contract v${now.version} is added (${now.status}).`);
}

function ruleChanges(before: Definition['rules'], after: Definition['rules'], words: string[]) {
  for (const old of before) {
    const now = after.find((rule) => rule.code === old.code);
    if (!now) words.push(`Rule ${old.code} is removed.`);
    else if (now.require !== old.require)
      words.push(`Rule ${old.code} now requires ${now.require} (was ${old.require}).`);
    else if (now.message !== old.message) words.push(`Rule ${old.code}'s message changes.`);
  }
  for (const now of after)
    if (!before.some((rule) => rule.code === now.code)) words.push(`Rule ${now.code} is added: ${now.require}.`);
  const order = (rules: Definition['rules']) =>
    rules
      .map((rule) => rule.code)
      .filter((code) => after.some((r) => r.code === code) && before.some((r) => r.code === code));
  if (!same(order(before), order(after))) words.push('The rules are checked in a new order.');
}

/** Every other key, named when it changes. */
const KEYS = {
  title: 'The title',
  scope: 'The executor scope',
  resolve: 'The resolver',
  executor: 'The executor',
  authority: 'The authority (grants or require)',
  claims: 'The claimed argument',
  summary: 'The summary',
  risk: 'The risk levels',
  editing: 'Editing',
  defaultRules: 'The default routing rules',
  receiptMatches: 'The receipt checks',
} as const satisfies Partial<Record<keyof Definition, string>>;

export function definitionChanges(before: Definition | undefined, after: Definition): DefinitionChanges {
  const changes: DefinitionChanges = { words: [], breaking: [] };
  if (!before) {
    changes.words.push(
      `${after.name} is new: ${after.contracts.length} contract version(s), ${after.rules.length} rule(s).`,
    );
    return changes;
  }
  for (const [key, words] of Object.entries(KEYS) as [keyof typeof KEYS, string][]) {
    if (same(before[key], after[key])) continue;
    const [was, now] = [before[key], after[key]];
    changes.words.push(
      typeof was === 'string' && typeof now === 'string'
        ? `${words} changes from ${was} to ${now}.`
        : `${words} changes.`,
    );
  }
  if (before.scope !== after.scope) changes.breaking.push(`the executor scope changes: commands name ${after.scope}`);
  ruleChanges(before.rules, after.rules, changes.words);
  contractChanges(before.contracts, after.contracts, changes);
  return changes;
}
