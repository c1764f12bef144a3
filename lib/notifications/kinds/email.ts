import { agentLabel } from '@/lib/events/actor-label';
import { digestLines, factLines, htmlEscape, type RenderInput, text, unlinked } from '../render';
import { guard, transportTo } from '../send';
import type { ChannelKindModule } from './types';

const EMAIL = /^[^\s@<>(),;:"]{1,64}@[A-Za-z0-9.-]{1,189}\.[A-Za-z]{2,63}$/;

/** Outside text in the HTML body: escaped, and never a link (mail clients link what looks like an address). */
const htmlText = (value: string) => htmlEscape(unlinked(value));

/**
 * "Needs you: " before a subject whose message (or one of a digest's) is for someone who can decide and a decision is
 * missing (./facts.ts `needsYou`).
 */
const needsYouPrefix = (inputs: RenderInput[]) =>
  inputs.some((each) => each.data.needsYou === true) ? 'Needs you: ' : '';

/**
 * One email: plain text and HTML with the same facts and link. Every message about one proposal
 * refers to the same thread root, so mail clients keep them in one conversation; a message that
 * needs the recipient says so first in its subject ("Needs you: [Countersign] …").
 */
export function emailContent(input: RenderInput, host: string) {
  if (input.items) return digestEmail(input, host);
  const { data } = input;
  const threadTopic = data.proposalId
    ? `[Countersign] ${text(data.title)} proposed by ${agentLabel(text(data.agent))} (${text(data.proposalId)})`
    : `[Countersign] ${text(data.headline)}`;
  const first = input.event === 'proposal.waiting' || !data.proposalId;
  const lines = factLines(input);
  const root = data.proposalId ? `<proposal.${text(data.proposalId)}@${host}>` : undefined;
  const plain = [
    text(data.headline),
    '',
    text(data.summary),
    '',
    ...lines.map(({ label, value }) => `${label}: ${value}`),
    '',
    `Review: ${text(data.url)}`,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">',
    `<p><strong>${htmlText(text(data.headline))}</strong></p>`,
    `<p>${htmlText(text(data.summary))}</p>`,
    lines.length > 0
      ? `<table>${lines
          .map(
            ({ label, value }) =>
              `<tr><th align="left" style="padding-right:1em">${htmlText(label)}</th>` +
              `<td>${htmlText(value)}</td></tr>`,
          )
          .join('')}</table>`
      : '',
    `<p><a href="${htmlEscape(text(data.url))}">Review in Countersign</a></p>`,
    '</body></html>',
  ].join('');
  return {
    subject: `${needsYouPrefix([input])}${first ? threadTopic : `Re: ${threadTopic}`}`,
    text: plain,
    html,
    messageId: `<${input.id}@${host}>`,
    ...(root && !first ? { inReplyTo: root, references: [root] } : {}),
    ...(root && first && input.event === 'proposal.waiting' ? { messageId: root } : {}),
  };
}

/** A digest: one email listing each message's one line of facts with its own link, then the queue. */
function digestEmail(input: RenderInput, host: string) {
  const { data } = input;
  const items = digestLines(input);
  const plain = [
    text(data.headline),
    '',
    text(data.summary),
    '',
    ...items.flatMap(({ line, url }) => [`- ${line}`, `  Review: ${url}`]),
    '',
    `Queue: ${text(data.url)}`,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">',
    `<p><strong>${htmlText(text(data.headline))}</strong></p>`,
    `<p>${htmlText(text(data.summary))}</p>`,
    `<ol>${items
      .map(({ line, url }) => `<li>${htmlText(line)} — <a href="${htmlEscape(url)}">Review</a></li>`)
      .join('')}</ol>`,
    data.url ? `<p><a href="${htmlEscape(text(data.url))}">Open the queue in Countersign</a></p>` : '',
    '</body></html>',
  ].join('');
  return {
    subject: `${needsYouPrefix(input.items ?? [])}[Countersign] ${text(data.headline)}`,
    text: plain,
    html,
    messageId: `<${input.id}@${host}>`,
  };
}

export const emailChannel: ChannelKindModule = {
  form: {
    kind: 'email',
    label: 'Email',
    targetLabel: 'Email address',
    inputMode: 'email',
    placeholder: 'ops@example.com',
    hint: 'Sent over the server’s SMTP settings.',
    targetShownInPart: false,
  },
  targetProblem: (target) => (EMAIL.test(target) ? undefined : 'must be an email address like ops@example.com'),
  // The SMTP server, not the address, is what Countersign connects to: every send checks it.
  targetIsOutbound: false,
  reachesMembers: true,
  async send(channel, message, options) {
    if (!options.mail.smtpUrl) return { ok: false, error: 'smtp_not_configured', final: true };
    const smtpHost = new URL(options.mail.smtpUrl).hostname || 'localhost';
    const fromHost = options.mail.from.match(/@([A-Za-z0-9.-]+)>?\s*$/)?.[1] ?? smtpHost;
    const smtp = await guard(options.mail.smtpUrl, options.targets, options.timeoutMs);
    if (!smtp.ok) return smtp.result;
    const to = [...new Set([channel.target, ...message.recipients].map((address) => address.toLowerCase()))];
    try {
      const info = await transportTo(smtp.target, options.mail.smtpUrl, options.timeoutMs).sendMail({
        from: options.mail.from,
        to,
        ...emailContent(message, fromHost),
        headers: { 'X-Countersign-Event': message.event },
      });
      const code = Number(String(info.response ?? '').slice(0, 3));
      return { ok: true, status: Number.isInteger(code) && code > 0 ? code : 250 };
    } catch (error) {
      const smtp = error as { responseCode?: unknown; code?: unknown };
      const status = typeof smtp.responseCode === 'number' ? smtp.responseCode : undefined;
      // A 5xx reply is permanent in SMTP (bad recipient, refused); 4xx and network trouble are not.
      if (status !== undefined && status >= 500) return { ok: false, status, error: `smtp_${status}`, final: true };
      const code =
        typeof smtp.code === 'string' && /^[A-Z_]{2,20}$/.test(smtp.code) ? smtp.code.toLowerCase() : 'smtp_error';
      return { ok: false, status, error: status ? `smtp_${status}` : code };
    }
  },
};
