import type { MessageData } from './message';
import { timeLeft } from './message';

/** The delivery a message is rendered for: its id is the message id receivers de-duplicate on. */
export type RenderInput = { id: string; event: string; data: MessageData; createdAt: Date; now: Date };

const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

/** The lines every channel shows, in order: what happened, the summary, then the facts. */
export function factLines(input: RenderInput): { label: string; value: string }[] {
  const { data } = input;
  const lines: { label: string; value: string }[] = [];
  if (data.details) lines.push({ label: 'Details', value: text(data.details) });
  if (data.risk) lines.push({ label: 'Risk', value: text(data.risk) });
  if (data.agent) lines.push({ label: 'Proposed by', value: text(data.agent) });
  if (data.status) lines.push({ label: 'Status', value: text(data.status).replaceAll('_', ' ') });
  if (data.expiresAt && (input.event === 'proposal.waiting' || input.event === 'proposal.reminder' || input.event === 'proposal.escalated')) {
    lines.push({ label: 'Time left', value: timeLeft(text(data.expiresAt), input.now) });
  }
  if (data.decidedBy) lines.push({ label: 'Decided by', value: text(data.decidedBy) });
  return lines;
}

/** The Standard Webhooks payload: `{type, timestamp, data}`, the same bytes on every retry. */
export function webhookBody(input: RenderInput): string {
  return JSON.stringify({ type: input.event, timestamp: input.createdAt.toISOString(), data: input.data });
}

const WORD_JOINER = '\u2060';

/**
 * Text that came from people or agents (names, titles, summaries, argument values), made inert:
 * an invisible word joiner after each `.`, `:` and `@` that joins two non-spaces, so no client
 * turns `evil.example/login` or `a@b.example` into a link.
 */
function unlinked(value: string): string {
  return value.replace(/([.:@])(?=\S)/g, `$1${WORD_JOINER}`);
}

/** &, < and > are Slack's control characters (`<!channel>`, `<http://x|y>`), escaped in every text it gets. */
function slackText(value: string): string {
  return unlinked(value).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

const clip = (value: string, max: number) => (value.length <= max ? value : `${value.slice(0, max - 1)}…`);

const plain = (value: string, max: number) => ({ type: 'plain_text' as const, text: clip(slackText(value), max), emoji: false });

/**
 * A Slack incoming-webhook message: header, summary, facts as fields, and a Review button to the
 * proposal. Nothing is mrkdwn (no `*`, `_`, `~` or backtick from a name formats anything) and the
 * fallback text is sent with `mrkdwn: false`.
 */
export function slackBody(input: RenderInput) {
  const { data } = input;
  const heading = `${text(data.headline)}: ${text(data.title || data.summary)}`;
  const fields = factLines(input).map(({ label, value }) => plain(`${label}\n${value}`, 2000));
  return {
    text: clip(slackText(`${heading} — ${text(data.summary)}`), 3000),
    mrkdwn: false,
    blocks: [
      { type: 'header', text: plain(heading, 150) },
      {
        type: 'section',
        text: plain(text(data.summary), 3000),
        ...(fields.length > 0 ? { fields: fields.slice(0, 10) } : {}),
      },
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: 'review', text: { type: 'plain_text', text: 'Review', emoji: false }, url: text(data.url), style: 'primary' }],
      },
    ],
  };
}

function htmlEscape(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

/** Outside text in the HTML body: escaped, and never a link (mail clients link what looks like an address). */
const htmlText = (value: string) => htmlEscape(unlinked(value));

/**
 * One email: plain text and HTML with the same facts and link. Every message about one proposal
 * refers to the same thread root, so mail clients keep them in one conversation.
 */
export function emailContent(input: RenderInput, host: string) {
  const { data } = input;
  const threadTopic = data.proposalId ? `[Countersign] ${text(data.title)} proposed by ${text(data.agent)} (${text(data.proposalId)})` : `[Countersign] ${text(data.headline)}`;
  const first = input.event === 'proposal.waiting' || !data.proposalId;
  const lines = factLines(input);
  const root = data.proposalId ? `<proposal.${text(data.proposalId)}@${host}>` : undefined;
  const plain = [text(data.headline), '', text(data.summary), '', ...lines.map(({ label, value }) => `${label}: ${value}`), '', `Review: ${text(data.url)}`, ''].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">',
    `<p><strong>${htmlText(text(data.headline))}</strong></p>`,
    `<p>${htmlText(text(data.summary))}</p>`,
    lines.length > 0 ? `<table>${lines.map(({ label, value }) => `<tr><th align="left" style="padding-right:1em">${htmlText(label)}</th><td>${htmlText(value)}</td></tr>`).join('')}</table>` : '',
    `<p><a href="${htmlEscape(text(data.url))}">Review in Countersign</a></p>`,
    '</body></html>',
  ].join('');
  return {
    subject: first ? threadTopic : `Re: ${threadTopic}`,
    text: plain,
    html,
    messageId: `<${input.id}@${host}>`,
    ...(root && !first ? { inReplyTo: root, references: [root] } : {}),
    ...(root && first && input.event === 'proposal.waiting' ? { messageId: root } : {}),
  };
}
