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

/** Slack mrkdwn treats &, < and > as markup: escape them in anything that came from outside. */
function slackEscape(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

const clip = (value: string, max: number) => (value.length <= max ? value : `${value.slice(0, max - 1)}…`);

/** A Slack incoming-webhook message: header, summary, facts as fields, and a Review button to the proposal. */
export function slackBody(input: RenderInput) {
  const { data } = input;
  const heading = `${text(data.headline)}: ${text(data.title || data.summary)}`;
  const fields = factLines(input).map(({ label, value }) => ({ type: 'mrkdwn' as const, text: clip(`*${label}*\n${slackEscape(value)}`, 2000) }));
  return {
    text: clip(slackEscape(`${heading} — ${text(data.summary)}`), 3000),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(heading, 150), emoji: false } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: clip(slackEscape(text(data.summary)), 3000) },
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
    `<p><strong>${htmlEscape(text(data.headline))}</strong></p>`,
    `<p>${htmlEscape(text(data.summary))}</p>`,
    lines.length > 0 ? `<table>${lines.map(({ label, value }) => `<tr><th align="left" style="padding-right:1em">${htmlEscape(label)}</th><td>${htmlEscape(value)}</td></tr>`).join('')}</table>` : '',
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
