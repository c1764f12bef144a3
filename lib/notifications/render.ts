import type { MessageData } from './message';
import { timeLeft } from './message';

/** What every channel kind's rendering shares; each kind renders its own format (./kinds/<kind>.ts). */

/** The delivery a message is rendered for: its id is the message id receivers de-duplicate on. */
export type RenderInput = { id: string; event: string; data: MessageData; createdAt: Date; now: Date };

export const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

/** The lines every channel shows, in order: what happened, the summary, then the facts. */
export function factLines(input: RenderInput): { label: string; value: string }[] {
  const { data } = input;
  const lines: { label: string; value: string }[] = [];
  if (data.details) lines.push({ label: 'Details', value: text(data.details) });
  // One line: the operator's words cannot start a line of their own ("Review: …") in a plain-text email.
  if (data.revisionReason) lines.push({ label: 'Edited because', value: text(data.revisionReason).replace(/\s+/g, ' ') });
  if (data.risk) lines.push({ label: 'Risk', value: text(data.risk) });
  if (data.agent) lines.push({ label: 'Proposed by', value: text(data.agent) });
  if (data.status) lines.push({ label: 'Status', value: text(data.status).replaceAll('_', ' ') });
  if (data.expiresAt && (input.event === 'proposal.waiting' || input.event === 'proposal.reminder' || input.event === 'proposal.escalated')) {
    lines.push({ label: 'Time left', value: timeLeft(text(data.expiresAt), input.now) });
  }
  if (data.decidedBy) lines.push({ label: 'Decided by', value: text(data.decidedBy) });
  return lines;
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
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}
