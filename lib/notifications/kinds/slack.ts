import { clip, digestLines, factLines, type RenderInput, text, unlinked } from '../render';
import { postJson } from '../send';
import type { ChannelKindModule } from './types';
import { urlTargetProblem } from './url-target';

/** Statuses Slack uses to say "never send this again" (a revoked or wrong URL): retrying cannot help. */
const FINAL_HTTP = new Set([400, 401, 403, 404, 410, 413]);

/** &, < and > are Slack's control characters (`<!channel>`, `<http://x|y>`), escaped in every text it gets. */
function slackText(value: string): string {
  return unlinked(value).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

const plain = (value: string, max: number) => ({
  type: 'plain_text' as const,
  text: clip(slackText(value), max),
  emoji: false,
});

/**
 * A Slack incoming-webhook message: header, summary, facts as fields, and a Review button to the
 * proposal. Nothing is mrkdwn (no `*`, `_`, `~` or backtick from a name formats anything) and the
 * fallback text is sent with `mrkdwn: false`.
 */
export function slackBody(input: RenderInput) {
  if (input.items) return slackDigest(input);
  const { data } = input;
  const heading = `${text(data.headline)}: ${text(data.title || data.summary)}`;
  const fields = factLines(input).map(({ label, value }) => plain(`${label}\n${value}`, 2000));
  // Slack takes at most 10 fields a section: the facts go on in a second one.
  const more =
    fields.length > 10 ? [{ type: 'section' as const, text: plain('More', 3000), fields: fields.slice(10, 20) }] : [];
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
      ...more,
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: 'review',
            text: { type: 'plain_text', text: 'Review', emoji: false },
            url: text(data.url),
            style: 'primary',
          },
        ],
      },
    ],
  };
}

/** Slack takes at most 50 blocks: header, summary, this many messages, a line for the rest, the queue button. */
const DIGEST_ITEMS_SHOWN = 45;

const button = (label: string, url: string) => ({
  type: 'button' as const,
  action_id: 'review',
  text: { type: 'plain_text' as const, text: label, emoji: false },
  url,
});

/** A digest: a section per message (its one line of facts and a Review button), then the queue. */
function slackDigest(input: RenderInput) {
  const { data } = input;
  const items = digestLines(input);
  const rest = items.length - DIGEST_ITEMS_SHOWN;
  return {
    text: clip(slackText(`${text(data.headline)} — ${text(data.summary)}`), 3000),
    mrkdwn: false,
    blocks: [
      { type: 'header', text: plain(text(data.headline), 150) },
      { type: 'section', text: plain(text(data.summary), 3000) },
      ...items
        .slice(0, DIGEST_ITEMS_SHOWN)
        .map(({ line, url }) => ({ type: 'section', text: plain(line, 3000), accessory: button('Review', url) })),
      ...(rest > 0 ? [{ type: 'section', text: plain(`…and ${rest} more in the queue`, 3000) }] : []),
      ...(data.url
        ? [{ type: 'actions', elements: [{ ...button('Open the queue', text(data.url)), style: 'primary' }] }]
        : []),
    ],
  };
}

export const slackChannel: ChannelKindModule = {
  form: {
    kind: 'slack',
    label: 'Slack',
    targetLabel: 'URL',
    inputMode: 'url',
    placeholder: 'https://hooks.slack.com/services/…',
    hint: 'A Slack incoming-webhook URL; it is itself a credential and is shown shortened afterwards.',
    targetShownInPart: true,
  },
  targetProblem: urlTargetProblem,
  targetIsOutbound: true,
  reachesMembers: false,
  // The URL is itself a credential: lists show its origin and last four characters only.
  displayTarget(target) {
    return `${new URL(target).origin}/…${target.slice(-4)}`;
  },
  async send(channel, message, options) {
    const result = await postJson(channel.target, JSON.stringify(slackBody(message)), {}, options);
    return !result.ok && result.status !== undefined && FINAL_HTTP.has(result.status)
      ? { ...result, final: true }
      : result;
  },
};
