import { cell, escapeHtml, head, PAGE_STYLE } from '@/demo/systems/page';
import type { SinkRequest } from './http-sink';
import type { CaughtMail } from './mail-catcher';

/**
 * What the demo's receivers got, newest first: signed webhooks, Slack messages and emails, each
 * reduced to what a person checks (event, signature, link), plus the bodies for tests to inspect.
 * Everything here arrived over the network and is shown as text.
 */
export type ReceivedView = {
  webhooks: {
    receivedAt: string;
    path: string;
    event: string;
    webhookId: string;
    signature: SinkRequest['signature'];
    url: string;
    body: string;
  }[];
  slack: { receivedAt: string; path: string; header: string; reviewUrl: string; body: string }[];
  emails: { receivedAt: string; to: string[]; subject: string; link: string; text: string; html: string }[];
  /** POSTs that are neither (a person pointing something else at the sink). */
  other: { receivedAt: string; path: string; bytes: number }[];
};

const newestFirst = <T extends { receivedAt: string }>(items: T[]) =>
  [...items].sort((a, b) => b.receivedAt.localeCompare(a.receivedAt));

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

const textOf = (value: unknown) => (typeof value === 'string' ? value : '');

type SlackBlock = { type?: unknown; text?: { text?: unknown }; elements?: { type?: unknown; url?: unknown }[] };

export function receivedView(requests: SinkRequest[], mails: CaughtMail[]): ReceivedView {
  const view: ReceivedView = { webhooks: [], slack: [], emails: [], other: [] };
  for (const request of requests) {
    const json = parseJson(request.body) as { type?: unknown; data?: { url?: unknown }; blocks?: unknown } | undefined;
    if (request.headers['webhook-id']) {
      view.webhooks.push({
        receivedAt: request.receivedAt,
        path: request.path,
        event: textOf(json?.type),
        webhookId: request.headers['webhook-id'],
        signature: request.signature,
        url: textOf(json?.data?.url),
        body: request.body,
      });
    } else if (json && Array.isArray(json.blocks)) {
      const blocks = json.blocks as SlackBlock[];
      const button = blocks
        .flatMap((block) => (block.type === 'actions' ? (block.elements ?? []) : []))
        .find((element) => element.type === 'button');
      view.slack.push({
        receivedAt: request.receivedAt,
        path: request.path,
        header: textOf(blocks.find((block) => block.type === 'header')?.text?.text),
        reviewUrl: textOf(button?.url),
        body: request.body,
      });
    } else {
      view.other.push({ receivedAt: request.receivedAt, path: request.path, bytes: Buffer.byteLength(request.body) });
    }
  }
  view.emails = mails.map((mail) => ({
    receivedAt: mail.receivedAt,
    to: mail.envelopeTo,
    subject: mail.subject,
    link: mail.text.match(/^Review: (\S+)$/m)?.[1] ?? '',
    text: mail.text,
    html: mail.html,
  }));
  return {
    webhooks: newestFirst(view.webhooks),
    slack: newestFirst(view.slack),
    emails: newestFirst(view.emails),
    other: newestFirst(view.other),
  };
}

/** A link is clickable only when it points into the dashboard; anything else stays text. */
function linkCell(url: string, appOrigin: string): string {
  let origin = '';
  try {
    origin = new URL(url).origin;
  } catch {
    // not a URL: shown as text
  }
  return origin === appOrigin ? `<td><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></td>` : cell(url);
}

function table(names: string[], rows: string[], empty: string): string {
  return rows.length === 0 ? `<p>${escapeHtml(empty)}</p>` : `<table>${head(names)}${rows.join('')}</table>`;
}

/** The read-only page at the sink's `GET /`: refreshes every 5 seconds, no scripts. */
export function renderReceivedPage(view: ReceivedView, options: { appUrl: string; smtpUrl: string }): string {
  const appOrigin = new URL(options.appUrl).origin;
  const webhooks = view.webhooks.map(
    (hook) =>
      `<tr>${cell(hook.receivedAt)}${cell(hook.event)}${cell(hook.webhookId)}` +
      `<td class="${hook.signature}">signature ${escapeHtml(hook.signature)}</td>${linkCell(hook.url, appOrigin)}</tr>`,
  );
  const slack = view.slack.map(
    (message) => `<tr>${cell(message.receivedAt)}${cell(message.header)}${linkCell(message.reviewUrl, appOrigin)}</tr>`,
  );
  const emails = view.emails.map(
    (mail) =>
      `<tr>${cell(mail.receivedAt)}${cell(mail.to.join(', '))}${cell(mail.subject)}` +
      `${linkCell(mail.link, appOrigin)}</tr>`,
  );
  const other = view.other.map(
    (request) => `<tr>${cell(request.receivedAt)}${cell(request.path)}${cell(`${request.bytes} bytes`)}</tr>`,
  );
  const intro =
    `What Countersign's demo channels for acme delivered, newest first; refreshes every 5 seconds. The mail ` +
    `catcher listens on ${escapeHtml(options.smtpUrl)}. As JSON: <a href="/received.json">/received.json</a>.`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="5">
<title>Demo notification receivers</title>
<style>${PAGE_STYLE}td.valid{color:#047857}td.invalid{color:#b91c1c;font-weight:600}</style>
</head>
<body>
<h1>Demo notification receivers</h1>
<p>${intro}</p>
<h2>Webhooks (Standard Webhooks, signature checked by this receiver)</h2>
${table(['received', 'event', 'webhook-id', 'signature', 'link'], webhooks, 'No webhooks yet.')}
<h2>Slack messages</h2>
${table(['received', 'header', 'Review link'], slack, 'No Slack messages yet.')}
<h2>Emails</h2>
${table(['received', 'to', 'subject', 'link'], emails, 'No emails yet.')}
${other.length > 0 ? `<h2>Other requests</h2>\n${table(['received', 'path', 'size'], other, '')}` : ''}
</body>
</html>
`;
}
