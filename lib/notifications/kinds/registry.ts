import { type ChannelKind, channelKindEnum } from '@/db/schema';
import { emailChannel } from './email';
import { slackChannel } from './slack';
import type { ChannelKindForm, ChannelKindModule } from './types';
import { webhookChannel } from './webhook';

/**
 * Every kind of notification channel. Keyed by the database's `channel_kind` enum (whose order the
 * settings form follows), so a kind without a module, or a module without its enum value, does not
 * compile.
 */
const KINDS: { readonly [K in ChannelKind]: ChannelKindModule } = {
  webhook: webhookChannel,
  slack: slackChannel,
  email: emailChannel,
};

export const CHANNEL_KIND_NAMES: readonly ChannelKind[] = channelKindEnum.enumValues;

export function channelKind(kind: ChannelKind): ChannelKindModule {
  return KINDS[kind];
}

/** What the settings form needs of every kind (plain data for the browser). */
export function channelKindForms(): ChannelKindForm[] {
  return CHANNEL_KIND_NAMES.map((kind) => KINDS[kind].form);
}

/** "webhook, slack or email". */
export const CHANNEL_KINDS_IN_WORDS = `${CHANNEL_KIND_NAMES.slice(0, -1).join(', ')} or ${CHANNEL_KIND_NAMES.at(-1)}`;
