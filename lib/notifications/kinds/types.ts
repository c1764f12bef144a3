import type { ChannelKind, NotificationChannel } from '@/db/schema';
import type { RenderInput } from '../render';
import type { SendOptions, SendResult } from '../send';

/** How the settings form asks for a channel of this kind (plain data: the page hands it to the browser). */
export type ChannelKindForm = {
  kind: ChannelKind;
  /** The kind's name in the dashboard ("Webhook"). */
  label: string;
  /** The target field's label and input mode. */
  targetLabel: string;
  inputMode: 'url' | 'email';
  placeholder: string;
  /** One sentence under the form about what this kind sends and how. */
  hint: string;
  /** The target is a credential, shown in part only: editing starts empty, and empty keeps it. */
  targetShownInPart: boolean;
};

/** A message to send: the delivery's rendering input, and the members the event is for when the kind mails them too. */
export type Outgoing = RenderInput & { recipients: string[] };

/**
 * One kind of notification channel: everything the channel API, the delivery pipeline and the
 * settings page need to know about it. Adding a kind is a module exporting one of these, a line in
 * ./registry.ts, and its value in the `channel_kind` enum of db/schema.ts (with a migration).
 */
export type ChannelKindModule = {
  form: ChannelKindForm;
  /** Why a target is not one this kind takes ("must be an http(s) URL"); undefined when it is. */
  targetProblem(target: string): string | undefined;
  /**
   * The target is an address Countersign connects to: on save it must resolve to public addresses
   * (lib/notifications/outbound.ts) unless its origin is allowed. Every send checks it again.
   */
  targetIsOutbound: boolean;
  /** A secret made when a channel of this kind is added, returned that once (a webhook's signing secret). */
  newSecret?(): string;
  /** How lists show the target when it must not be shown whole. */
  displayTarget?(target: string): string;
  /** Deliveries of this kind also go to the members the event is for (email). */
  reachesMembers: boolean;
  /**
   * One attempt of one delivery, through the checked connections of ../send.ts. Never throws; never logs the message.
   */
  send(
    channel: Pick<NotificationChannel, 'target' | 'secret'>,
    message: Outgoing,
    options: SendOptions,
  ): Promise<SendResult>;
};
