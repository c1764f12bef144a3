import { and, eq, notInArray } from 'drizzle-orm';
import type { Database } from '@/db';
import type { FlagKind, ProposalFlag } from '@/db/proposal-flags';
import { type EvidenceSnapshot, proposals, type Routing } from '@/db/schema';
import type { ActionModule, OpenClaims, Resolution } from '@/lib/actions/types';
import type { GateSubject } from '@/lib/gates/types';
import { aggregateKey, type PriorTotals } from '@/lib/policy/aggregate';
import type { LoadedPolicy } from '@/lib/policy/routing';
import type { RoutingRule } from '@/lib/routing-rules';
import { invisibleName, tagValue } from '@/lib/text/characters';
import { codePointName, hiddenCharacterIndexes } from '@/lib/text/invisible';
import { findLookalikes } from '@/lib/text/lookalike';
import { step } from '@/lib/text/scan-steps';
import { MAX_NON_STARTERS, streamSafe } from '@/lib/text/stream-safe';
import { resourceWords, visibleText } from '@/lib/text/visible';
import { suspiciousPhrases } from './suspicious';

/**
 * Risk flags (db/proposal-flags.ts): what the gates noticed about a proposal besides its risk
 * level, computed once at intake and kept with it. Only text the agent supplied is read — every
 * string in the arguments and the evidence it cited — never our own sentences (summaries, labels),
 * so "Hold 2 × sku" flags nothing. The text flags are read before the resource lock is taken
 * (lib/intake/admit.ts), the rest under it. Flags inform the reviewer; they never refuse anything.
 */

/** A routing threshold this close (10 % below it) is "near": the splitting / threshold-shopping signal. */
export const NEAR_FRACTION = 0.9;

/**
 * Characters (UTF-16 code units) of agent-supplied text the flags read per proposal: the arguments
 * first, then each cited evidence text in the order cited. Room for a whole request body of
 * arguments (64 KiB) and three full evidence records besides (20,000 each, lib/gates/evidence.ts):
 * a proposal's scan costs at most this much work whatever an agent sends or cites (20 × 20,000
 * would be 400,000). Text past it is not read, and the proposal is flagged "Text not scanned":
 * never silently clean.
 */
export const SCAN_BUDGET_CHARS = 128_000;

/**
 * One piece of agent-supplied text and where it came from (`reason`, `items.2.sku`, `evidence
 * ticket_message_74`), as read within the budget, with the longest run of combining marks it has.
 * The text is as sent, so a CGJ in it is the agent's: the skeleton puts it in Stream-Safe Text
 * Format before normalizing (lib/text/lookalike.ts), and every other scanner here reads one
 * character at a time.
 */
export type TextSource = { where: string; text: string; evidence: boolean; longestRun: number };

/** A source the budget did not reach to its end: how many of its characters were not read. */
export type UnscannedSource = { where: string; unread: number; length: number };

/** At most `budget` code units of the text, never half of a surrogate pair. */
function within(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const last = text.charCodeAt(budget - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? budget - 1 : budget);
}

const MAX_PLACES = 5;
const MAX_ITEMS = 4;
const MAX_QUOTE = 60;

const LABELS: Record<Exclude<FlagKind, 'suspicious_evidence'>, string> = {
  invisible_characters: 'Invisible characters',
  lookalike_characters: 'Look-alike characters',
  unscanned_text: 'Text not scanned',
  near_bound: 'Near a bound',
  first_use: 'First use',
};

/**
 * Every string in the arguments (with its dotted path) and every cited evidence text, as read
 * within SCAN_BUDGET_CHARS; and the ones the budget cut short or did not reach.
 */
export function textSources(
  args: Record<string, unknown>,
  evidence: EvidenceSnapshot[],
): { sources: TextSource[]; unscanned: UnscannedSource[] } {
  const sources: TextSource[] = [];
  const unscanned: UnscannedSource[] = [];
  let budget = SCAN_BUDGET_CHARS;
  const read = (place: string, value: string, isEvidence: boolean) => {
    const where = visibleText(streamSafe(place).text);
    const text = within(value, budget);
    budget -= text.length;
    if (text.length < value.length) unscanned.push({ where, unread: value.length - text.length, length: value.length });
    if (text.length === 0 && value.length > 0) return;
    sources.push({ where, text, evidence: isEvidence, longestRun: streamSafe(text).longestRun });
  };
  const walk = (value: unknown, path: string) => {
    if (typeof value === 'string') read(path, value, false);
    else if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${path}.${index}`));
    else if (value && typeof value === 'object')
      for (const [key, item] of Object.entries(value)) walk(item, path ? `${path}.${key}` : key);
  };
  walk(args, '');
  for (const snapshot of evidence) read(`evidence ${snapshot.id}`, snapshot.text, true);
  return { sources, unscanned };
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

/**
 * Hidden characters, and a run of combining marks longer than Unicode's stream-safe limit: stacked
 * on one letter they hide what is under them ("Zalgo" text), and no language needs more than 30.
 */
function invisibleIn({ text, longestRun }: TextSource): string[] {
  const points = [...text].map((ch) => step() && ch.codePointAt(0)!);
  const found = hiddenCharacterIndexes(text).map((index) => step() && points[index]!);
  const items: string[] = [];
  const tags = found.filter((codePoint) => step() && tagValue(codePoint) !== undefined);
  for (const codePoint of new Set(found.filter((codePoint) => step() && tagValue(codePoint) === undefined))) {
    items.push(`${codePointName(codePoint)} ${invisibleName(codePoint) ?? ''}`.trim());
  }
  if (tags.length > 0)
    items.push(
      `${tags.length} TAG character${tags.length === 1 ? '' : 's'} (U+E0020–U+E007E) ` +
        `hiding ${quote(hiddenTagText(text))}`,
    );
  if (longestRun > MAX_NON_STARTERS)
    items.push(
      `a run of ${longestRun.toLocaleString('en-US')} combining marks (more than ${MAX_NON_STARTERS} in a row)`,
    );
  return items;
}

function lookalikesIn(text: string): string[] {
  const seen = new Map<number, string>();
  for (const found of findLookalikes(text)) {
    step();
    if (!seen.has(found.codePoint))
      seen.set(found.codePoint, `${codePointName(found.codePoint)} ${found.name} (looks like ${found.looksLike})`);
  }
  return [...seen.values()];
}

/** "Text not scanned": what the budget did not reach, in words. Never a silent clean. */
function unscannedFlag(unscanned: UnscannedSource[]): ProposalFlag {
  const places = unscanned.map(({ where, unread, length }) => ({
    where,
    items: [
      unread === length
        ? `all ${length.toLocaleString('en-US')} characters`
        : `the last ${unread.toLocaleString('en-US')} of ${length.toLocaleString('en-US')} characters`,
    ],
  }));
  return {
    kind: 'unscanned_text',
    label: LABELS.unscanned_text,
    detail:
      `Not read for hidden characters or instructions, past ` +
      `the ${SCAN_BUDGET_CHARS.toLocaleString('en-US')} characters read per proposal: ${placesDetail(places)}`,
  };
}

/**
 * The flags read from agent-supplied text: suspicious phrases, invisible and look-alike characters,
 * and text past the scan budget. Pure and linear in at most SCAN_BUDGET_CHARS: intake calls it
 * before it takes the resource lock.
 */
export function textFlags(args: Record<string, unknown>, evidence: EvidenceSnapshot[]): ProposalFlag[] {
  const { sources, unscanned } = textSources(args, evidence);
  const collect = (find: (source: TextSource) => string[]) =>
    sources.flatMap((source) => {
      const items = find(source);
      return items.length > 0 ? [{ source, items }] : [];
    });
  const flags: ProposalFlag[] = [];
  const suspicious = collect(suspiciousIn);
  if (suspicious.length > 0) {
    const label = suspicious.some(({ source }) => source.evidence) ? 'Suspicious evidence' : 'Suspicious text';
    flags.push({
      kind: 'suspicious_evidence',
      label,
      detail: placesDetail(suspicious.map(({ source, items }) => ({ where: source.where, items }))),
    });
  }
  for (const [kind, find] of [
    ['invisible_characters', invisibleIn],
    ['lookalike_characters', (source: TextSource) => lookalikesIn(source.text)],
  ] as const) {
    const places = collect(find);
    if (places.length > 0)
      flags.push({
        kind,
        label: LABELS[kind],
        detail: placesDetail(places.map(({ source, items }) => ({ where: source.where, items }))),
      });
  }
  if (unscanned.length > 0) flags.push(unscannedFlag(unscanned));
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
export function routingNearBounds(
  action: ActionModule,
  policy: LoadedPolicy,
  routing: Routing,
  args: Record<string, unknown>,
  priors: PriorTotals,
): string[] {
  const words = (field: string, value: number) =>
    action.argHints?.({ ...args, [field]: value })[field] ?? String(value);
  const near: string[] = [];
  for (const rule of policy.rules ?? []) {
    const deciding = rule.id === routing.rule;
    const value = rule.when ? args[rule.when.field] : undefined;
    if (rule.when && typeof value === 'number') {
      const { field, above, below, aggregate } = rule.when;
      const routesDifferently =
        rule.outcome !== routing.outcome || rule.approvals !== routing.approvals || rule.role !== routing.role;
      if (above !== undefined && above > 0 && !deciding && routesDifferently) {
        const prior = aggregate ? priors.get(aggregateKey({ field, windowHours: aggregate.windowHours })) : undefined;
        const total = value + (prior?.sum ?? 0);
        if (total <= above && total >= above * NEAR_FRACTION) {
          const withPrior =
            prior && prior.count > 0
              ? ` (${words(field, total)} with ${prior.count} earlier in ${aggregate!.windowHours} h)`
              : '';
          near.push(
            `${field} ${words(field, value)}${withPrior} is just under ${words(field, above)}, above which ` +
              `rule "${rule.id}" ${outcomeWords(rule)}`,
          );
        }
      }
      if (below !== undefined && deciding && value < below && value >= below * NEAR_FRACTION) {
        near.push(
          `${field} ${words(field, value)} is just under ${words(field, below)}, below which rule ` +
            `"${rule.id}" ${outcomeWords(rule)}`,
        );
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
export async function resourceUsedBefore(
  db: Database,
  tenantId: string,
  resourceKey: string,
  excludeId?: string,
): Promise<boolean> {
  const chain = excludeId ? await revisionChain(db, tenantId, excludeId) : [];
  const [row] = await db
    .select({ id: proposals.id })
    .from(proposals)
    .where(
      and(
        eq(proposals.tenantId, tenantId),
        eq(proposals.resourceKey, resourceKey),
        chain.length > 0 ? notInArray(proposals.id, chain) : undefined,
      ),
    )
    .limit(1);
  return row !== undefined;
}

export type FlagContext = {
  /** textFlags(args, evidence), read before the resource lock was taken. */
  text: ProposalFlag[];
  resolution: Resolution;
  policy: LoadedPolicy;
  routing: Routing;
  /** The aggregate sums Routing read, and what the open proposals claim (the rules read it). */
  priors: PriorTotals;
  open: OpenClaims;
  /** `resourceUsedBefore`, read under the same lock (a revision's own chain is not an earlier use). */
  usedBefore: boolean;
};

/**
 * Every flag of a candidate that passed the gates, in FLAG_KINDS order: the text flags as read
 * before the lock, then near-a-bound and "first use". Call it inside the intake transaction after
 * Routing, under the resource lock, with the sums the rules and Routing read, so those two see
 * exactly what the gates saw. No text is read here.
 */
export function proposalFlags(subject: GateSubject, context: FlagContext): ProposalFlag[] {
  const { action, args } = subject;
  const { text, resolution, policy, routing, priors, open, usedBefore } = context;
  const { resourceKey } = resolution;

  const flags = [...text];
  const limit = action.nearLimit?.(args, resolution, open);
  const near = [...routingNearBounds(action, policy, routing, args, priors), ...(limit ? [limit] : [])];
  if (near.length > 0) flags.push({ kind: 'near_bound', label: LABELS.near_bound, detail: near.join('; ') });
  if (!usedBefore)
    flags.push({
      kind: 'first_use',
      label: LABELS.first_use,
      detail: `No earlier proposal on ${resourceWords(resourceKey)} in this tenant`,
    });
  return flags;
}
