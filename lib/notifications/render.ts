import { agentLabel } from '@/lib/events/actor-label';
import type { MessageData } from './message';
import { timeLeft } from './message';

/** What every channel kind's rendering shares; each kind renders its own format (./kinds/<kind>.ts). */

/** The delivery a message is rendered for: its id is the message id receivers de-duplicate on. */
export type RenderInput = {
  id: string;
  event: string;
  data: MessageData;
  createdAt: Date;
  now: Date /** A digest's messages (./digest.ts). */;
  items?: RenderInput[];
};

export const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

export type FactLine = { label: string; value: string /** Also in a digest's one line per item. */; brief?: true };

/** Events that wait for someone: they say how long is left. */
const COUNTING_DOWN = new Set(['proposal.waiting', 'proposal.reminder', 'proposal.escalated']);

/**
 * The lines every channel shows, in order: the one function that words a message's facts
 * (./facts.ts); webhook, Slack and email each render these same lines.
 */
export function factLines(input: RenderInput): FactLine[] {
  const { data } = input;
  const lines: FactLine[] = [];
  const add = (label: string, value: unknown, brief?: true) =>
    lines.push({ label, value: text(value), ...(brief ? { brief } : {}) });
  if (data.details) add('Details', data.details);
  if (data.needsYou === true) {
    const missing = Number(data.approvalsNeeded) - Number(data.approvals);
    add('Needs you', `yes: ${missing} more approval${missing === 1 ? '' : 's'} needed`, true);
  }
  if (data.resource) add('Resource', data.resource, true);
  if (data.severity || data.risk) add('Risk', data.severity ?? data.risk, true);
  if (data.flags) add('Flags', data.flags, true);
  if (typeof data.approvalsNeeded === 'number' && data.approvalsNeeded > 0)
    add('Approvals', `${text(data.approvals)} of ${data.approvalsNeeded}`, true);
  if (data.revisionOf)
    add('Revision', `of ${text(data.revisionOf)}${data.editedBy ? `, edited by ${text(data.editedBy)}` : ''}`, true);
  // One line: the operator's words cannot start a line of their own ("Review: …") in a plain-text email.
  if (data.revisionReason) add('Edited because', text(data.revisionReason).replace(/\s+/g, ' '));
  if (data.agent) add('Proposed by', agentLabel(text(data.agent)));
  if (data.status) add('Status', text(data.status).replaceAll('_', ' '));
  if (data.expiresAt && COUNTING_DOWN.has(input.event))
    add('Time left', timeLeft(text(data.expiresAt), input.now), true);
  if (data.decidedBy) add('Decided by', data.decidedBy, true);
  return lines;
}

/**
 * A message in one line, for a digest: "Waiting for a decision: Issue refund — Resource order ord_1842 · Risk high ·
 * Approvals 1 of 2".
 */
export function factLine(input: RenderInput): string {
  const facts = factLines(input)
    .filter((line) => line.brief)
    .map(({ label, value }) => `${label} ${value}`);
  const heading = `${text(input.data.headline)}: ${text(input.data.title || input.data.summary)}`;
  return facts.length > 0 ? `${heading} — ${facts.join(' · ')}` : heading;
}

/** A digest's list: each message's one line of facts and its link. */
export function digestLines(input: RenderInput): { line: string; url: string }[] {
  return (input.items ?? []).map((item) => ({ line: factLine(item), url: text(item.data.url) }));
}

const WORD_JOINER = '\u2060';

/**
 * Text that came from people or agents (names, titles, summaries, argument values), made inert:
 * an invisible word joiner after each `.`, `:` and `@` that joins two non-spaces, so no client
 * turns `evil.example/login` or `a@b.example` into a link.
 */
export function unlinked(value: string): string {
  return value.replace(/([.:@])(?=\S)/g, `$1${WORD_JOINER}`);
}

export const clip = (value: string, max: number) => (value.length <= max ? value : `${value.slice(0, max - 1)}…`);

export function htmlEscape(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
