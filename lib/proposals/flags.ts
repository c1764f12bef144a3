import { and, eq, notInArray } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals, type EvidenceSnapshot, type Routing } from '@/db/schema';
import type { ActionModule, OpenClaims, Resolution } from '@/lib/actions/types';
import type { GateSubject } from '@/lib/gates/types';
import { aggregateKey, type PriorTotals } from '@/lib/policy/aggregate';
import type { LoadedPolicy } from '@/lib/policy/routing';
import type { RoutingRule } from '@/lib/routing-rules';
import { invisibleName, tagValue } from '@/lib/text/characters';
import { codePointName, hiddenCharacterIndexes } from '@/lib/text/invisible';
import { findLookalikes } from '@/lib/text/lookalike';
import { step } from '@/lib/text/scan-steps';
import { resourceWords, visibleText } from '@/lib/text/visible';
import type { FlagKind, ProposalFlag } from '@/db/proposal-flags';
import { suspiciousPhrases } from './suspicious';

/**
 * Risk flags (db/proposal-flags.ts): what the gates noticed about a proposal besides its
 * risk level, computed once at intake under the resource lock and kept with it. Only text the
 * agent supplied is read — every string in the arguments and the evidence it cited — never our
 * own sentences (summaries, labels), so "Hold 2 × sku" flags nothing. Flags inform the reviewer;
 * they never refuse anything.
 */

/** A routing threshold this close (10 % below it) is "near": the splitting / threshold-shopping signal. */
export const NEAR_FRACTION = 0.9;

/** One piece of agent-supplied text and where it came from (`reason`, `items.2.sku`, `evidence ticket_message_74`). */
export type TextSource = { where: string; text: string; evidence: boolean };

/**
 * How much of one string or evidence text the flags read: all of any evidence record (its text is at
 * most 20,000 characters, lib/gates/evidence.ts) and of any argument a contract bounds sensibly. It
 * bounds the work intake does under the resource lock whatever an agent sends, on top of every
 * scanner being linear; the rest of a longer string is still shown to the reviewer, only not flagged.
 */
export const MAX_SCANNED_CHARS = 20_000;

/** The first MAX_SCANNED_CHARS code units of the text, never half of a surrogate pair. */
function scanned(text: string): string {
  if (text.length <= MAX_SCANNED_CHARS) return text;
  const last = text.charCodeAt(MAX_SCANNED_CHARS - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_SCANNED_CHARS - 1 : MAX_SCANNED_CHARS);
}

const MAX_PLACES = 5;
const MAX_ITEMS = 4;
const MAX_QUOTE = 60;

const LABELS: Record<Exclude<FlagKind, 'suspicious_evidence'>, string> = {
  invisible_characters: 'Invisible characters',
  lookalike_characters: 'Look-alike characters',
  near_bound: 'Near a bound',
  first_use: 'First use',
};

/** Every string in the arguments (with its dotted path) and every cited evidence text, each cut to MAX_SCANNED_CHARS. */
export function textSources(args: Record<string, unknown>, evidence: EvidenceSnapshot[]): TextSource[] {
  const sources: TextSource[] = [];
  const walk = (value: unknown, path: string) => {
    if (typeof value === 'string') sources.push({ where: visibleText(path), text: scanned(value), evidence: false });
    else if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${path}.${index}`));
    else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(item, path ? `${path}.${key}` : key);
  };
  walk(args, '');
  for (const snapshot of evidence) sources.push({ where: `evidence ${visibleText(snapshot.id)}`, text: scanned(snapshot.text), evidence: true });
  return sources;
}

/** Untrusted text quoted in a detail: marks for anything invisible, cut to a short length. */
function quote(text: string): string {
  const points = [...text];
  const cut = points.length > MAX_QUOTE ? `${points.slice(0, MAX_QUOTE - 1).join('')}…` : text;
  return `“${visibleText(cut)}”`;
}

function list(items: string[]): string {
  const shown = items.slice(0, MAX_ITEMS).join(', ');
  return items.length > MAX_ITEMS ? `${shown} and ${items.length - MAX_ITEMS} more` : shown;
}

/** `reason: …; evidence ticket_message_74: …`, at most a few places. */
function placesDetail(places: { where: string; items: string[] }[]): string {
  const shown = places.slice(0, MAX_PLACES).map(({ where, items }) => `${where}: ${list(items)}`);
  const more = places.length - MAX_PLACES;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}

/** What tag characters hide: they spell ASCII that no font shows ("ASCII smuggling"). */
function hiddenTagText(text: string): string {
  return [...text].map((ch) => step() && (tagValue(ch.codePointAt(0)!) ?? '')).join('');
}

function suspiciousIn(source: TextSource): string[] {
  const hidden = hiddenTagText(source.text);
  const phrases = suspiciousPhrases(hidden ? `${source.text}\n${hidden}` : source.text);
  return [...new Set(phrases)].map(quote);
}

function invisibleIn(text: string): string[] {
  const points = [...text].map((ch) => step() && ch.codePointAt(0)!);
  const found = hiddenCharacterIndexes(text).map((index) => step() && points[index]!);
  const items: string[] = [];
  const tags = found.filter((codePoint) => step() && tagValue(codePoint) !== undefined);
  for (const codePoint of new Set(found.filter((codePoint) => step() && tagValue(codePoint) === undefined))) {
    items.push(`${codePointName(codePoint)} ${invisibleName(codePoint) ?? ''}`.trim());
  }
  if (tags.length > 0) items.push(`${tags.length} TAG character${tags.length === 1 ? '' : 's'} (U+E0020–U+E007E) hiding ${quote(hiddenTagText(text))}`);
  return items;
}

function lookalikesIn(text: string): string[] {
  const seen = new Map<number, string>();
  for (const found of findLookalikes(text)) {
    step();
    if (!seen.has(found.codePoint)) seen.set(found.codePoint, `${codePointName(found.codePoint)} ${found.name} (looks like ${found.looksLike})`);
  }
  return [...seen.values()];
}

/** The flags read from agent-supplied text: suspicious phrases, invisible and look-alike characters. */
export function textFlags(args: Record<string, unknown>, evidence: EvidenceSnapshot[]): ProposalFlag[] {
  const sources = textSources(args, evidence);
  const collect = (find: (source: TextSource) => string[]) =>
    sources.flatMap((source) => {
      const items = find(source);
      return items.length > 0 ? [{ source, items }] : [];
    });
  const flags: ProposalFlag[] = [];
  const suspicious = collect(suspiciousIn);
  if (suspicious.length > 0) {
    const label = suspicious.some(({ source }) => source.evidence) ? 'Suspicious evidence' : 'Suspicious text';
    flags.push({ kind: 'suspicious_evidence', label, detail: placesDetail(suspicious.map(({ source, items }) => ({ where: source.where, items }))) });
  }
  for (const [kind, find] of [
    ['invisible_characters', (source: TextSource) => invisibleIn(source.text)],
    ['lookalike_characters', (source: TextSource) => lookalikesIn(source.text)],
  ] as const) {
    const places = collect(find);
    if (places.length > 0) flags.push({ kind, label: LABELS[kind], detail: placesDetail(places.map(({ source, items }) => ({ where: source.where, items }))) });
  }
  return flags;
}

function outcomeWords(rule: RoutingRule): string {
  if (rule.outcome === 'deny') return 'denies it';
  if (rule.outcome === 'auto_approve') return 'approves it automatically';
  return `needs ${rule.approvals} ${rule.role}${rule.approvals === 1 ? '' : 's'}`;
}

/**
 * The routing thresholds this proposal sits just inside of, in words: an `above` bound of a rule
 * before the deciding one that it (with the earlier proposals an aggregate bound adds) stays within
 * 10 % under — the next few cents would have routed it differently — and a `below` bound of the
 * deciding rule it stays within 10 % under. Rules after the deciding one never matter.
 */
export function routingNearBounds(action: ActionModule, policy: LoadedPolicy, routing: Routing, args: Record<string, unknown>, priors: PriorTotals): string[] {
  const words = (field: string, value: number) => action.argHints?.({ ...args, [field]: value })[field] ?? String(value);
  const near: string[] = [];
  for (const rule of policy.rules ?? []) {
    const deciding = rule.id === routing.rule;
    const value = rule.when ? args[rule.when.field] : undefined;
    if (rule.when && typeof value === 'number') {
      const { field, above, below, aggregate } = rule.when;
      const routesDifferently = rule.outcome !== routing.outcome || rule.approvals !== routing.approvals || rule.role !== routing.role;
      if (above !== undefined && above > 0 && !deciding && routesDifferently) {
        const prior = aggregate ? priors.get(aggregateKey({ field, windowHours: aggregate.windowHours })) : undefined;
        const total = value + (prior?.sum ?? 0);
        if (total <= above && total >= above * NEAR_FRACTION) {
          const withPrior = prior && prior.count > 0 ? ` (${words(field, total)} with ${prior.count} earlier in ${aggregate!.windowHours} h)` : '';
          near.push(`${field} ${words(field, value)}${withPrior} is just under ${words(field, above)}, above which rule "${rule.id}" ${outcomeWords(rule)}`);
        }
      }
      if (below !== undefined && deciding && value < below && value >= below * NEAR_FRACTION) {
        near.push(`${field} ${words(field, value)} is just under ${words(field, below)}, below which rule "${rule.id}" ${outcomeWords(rule)}`);
      }
    }
    if (deciding) break;
  }
  return near;
}

/** The ids of a revision's parent and its ancestors: one request, edited, not earlier uses. */
async function revisionChain(db: Database, tenantId: string, parentId: string): Promise<string[]> {
  const chain: string[] = [];
  let next: string | null = parentId;
  while (next && !chain.includes(next)) {
    chain.push(next);
    const [row]: { parentId: string | null }[] = await db
      .select({ parentId: proposals.parentId })
      .from(proposals)
      .where(and(eq(proposals.tenantId, tenantId), eq(proposals.id, next)));
    next = row?.parentId ?? null;
  }
  return chain;
}

/** Whether any proposal (any status, any action) came before on this resource in this tenant. */
export async function resourceUsedBefore(db: Database, tenantId: string, resourceKey: string, excludeId?: string): Promise<boolean> {
  const chain = excludeId ? await revisionChain(db, tenantId, excludeId) : [];
  const [row] = await db
    .select({ id: proposals.id })
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.resourceKey, resourceKey), chain.length > 0 ? notInArray(proposals.id, chain) : undefined))
    .limit(1);
  return row !== undefined;
}

export type FlagContext = {
  resolution: Resolution;
  evidence: EvidenceSnapshot[];
  policy: LoadedPolicy;
  routing: Routing;
  /** The aggregate sums Routing read, and what the open proposals claim (the rules read it). */
  priors: PriorTotals;
  open: OpenClaims;
  /** `resourceUsedBefore`, read under the same lock (a revision's own chain is not an earlier use). */
  usedBefore: boolean;
};

/**
 * Every flag of a candidate that passed the gates, in FLAG_KINDS order. Call it inside the intake
 * transaction after Routing, under the resource lock, with the sums the rules and Routing read, so
 * near-a-bound and "first use" see exactly what they saw.
 */
export function proposalFlags(subject: GateSubject, context: FlagContext): ProposalFlag[] {
  const { action, args } = subject;
  const { resolution, evidence, policy, routing, priors, open, usedBefore } = context;
  const { resourceKey } = resolution;

  const flags = textFlags(args, evidence);
  const limit = action.nearLimit?.(args, resolution, open);
  const near = [...routingNearBounds(action, policy, routing, args, priors), ...(limit ? [limit] : [])];
  if (near.length > 0) flags.push({ kind: 'near_bound', label: LABELS.near_bound, detail: near.join('; ') });
  if (!usedBefore) flags.push({ kind: 'first_use', label: LABELS.first_use, detail: `No earlier proposal on ${resourceWords(resourceKey)} in this tenant` });
  return flags;
}
