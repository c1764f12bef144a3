import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { NotificationChannel } from '@/db/schema';
import { factLines, type RenderInput } from '../render';
import { postJson } from '../send';
import type { ChannelKindModule } from './types';
import { urlTargetProblem } from './url-target';

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks payload: `{type, timestamp, data, facts}`, the same bytes on every retry:
 * `data` the message's fields, `facts` the lines Slack and email show (`[{label, value}]`), worded
 * as of when the message was written (so "Time left" does not change between retries).
 */
export function webhookBody(input: RenderInput): string {
  const payload = (message: RenderInput) => ({
    data: message.data,
    facts: factLines({ ...message, now: message.createdAt }).map(({ label, value }) => ({ label, value })),
  });
  // A digest lists its messages, each as it would have gone on its own: {id, type, data, facts}.
  const items = input.items
    ? { items: input.items.map((item) => ({ id: item.id, type: item.event, ...payload(item) })) }
    : {};
  return JSON.stringify({ type: input.event, timestamp: input.createdAt.toISOString(), ...payload(input), ...items });
}

/** A signed Standard Webhooks POST: `webhook-id` (the delivery's id), `webhook-timestamp`, `webhook-signature`. */
export function webhookRequest(channel: Pick<NotificationChannel, 'secret'>, input: RenderInput, at: Date) {
  if (!channel.secret) throw new Error('a webhook channel has a secret');
  const body = webhookBody(input);
  const headers = {
    'webhook-id': input.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(channel.secret).sign(input.id, at, body),
  };
  return { body, headers };
}

export const webhookChannel: ChannelKindModule = {
  form: {
    kind: 'webhook',
    label: 'Webhook',
    targetLabel: 'URL',
    inputMode: 'url',
    placeholder: 'https://example.com/hooks/countersign',
    hint: 'Signed per Standard Webhooks; the secret is shown once after adding.',
    targetShownInPart: false,
  },
  targetProblem: urlTargetProblem,
  targetIsOutbound: true,
  newSecret: newWebhookSecret,
  reachesMembers: false,
  send(channel, message, options) {
    const { body, headers } = webhookRequest(channel, message, message.now);
    return postJson(channel.target, body, headers, options);
  },
};
