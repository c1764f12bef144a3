import type {
  ChannelInput,
  ChannelPatch,
  DeliveryRow,
  NotificationSettings,
  PublicChannel,
} from '@/lib/notifications/channels';
import { type ApiResult, call, sendJson } from './operator-api';

/**
 * The dashboard's client for the notification admin API (`/api/v1/admin/notifications`), through
 * the same `call` as every operator request: refusals come back as values with the server's code,
 * words and field issues. Client-safe: types only from the server side.
 */

/** A value as it arrives over JSON: its dates as ISO strings. */
type Serialized<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

/** A channel as the API lists it: never its secret; a Slack URL shortened. */
export type ChannelView = Serialized<PublicChannel>;

/** One delivery as the list shows it (the newest 50). */
export type DeliveryView = Serialized<DeliveryRow>;

export type NotificationsView = { settings: NotificationSettings; channels: ChannelView[]; deliveries: DeliveryView[] };

const BASE = '/api/v1/admin/notifications';
const JSON_ACCEPT: RequestInit = { headers: { accept: 'application/json' } };

export function fetchNotifications(): Promise<ApiResult<NotificationsView>> {
  return call(BASE, JSON_ACCEPT, 'The notification settings could not be loaded');
}

/** Adds a channel; `secret` is a webhook's signing secret, shown this once. */
export function createChannel(
  input: ChannelInput,
): Promise<ApiResult<{ channel: ChannelView; secret: string | null }>> {
  return call(`${BASE}/channels`, sendJson(input), 'The channel was not added');
}

export function updateChannel(channelId: string, patch: ChannelPatch): Promise<ApiResult<{ channel: ChannelView }>> {
  return call(
    `${BASE}/channels/${encodeURIComponent(channelId)}`,
    sendJson(patch, 'PATCH'),
    'The channel was not changed',
  );
}

export function sendTest(channelId: string): Promise<ApiResult<{ delivery: DeliveryView }>> {
  return call(`${BASE}/channels/${encodeURIComponent(channelId)}/test`, sendJson({}), 'The test was not sent');
}

export function retryDelivery(deliveryId: string): Promise<ApiResult<{ delivery: DeliveryView }>> {
  return call(
    `${BASE}/deliveries/${encodeURIComponent(deliveryId)}/retry`,
    sendJson({}),
    'The delivery was not retried',
  );
}

export function saveNotificationSettings(
  settings: NotificationSettings,
): Promise<ApiResult<{ settings: NotificationSettings }>> {
  return call(`${BASE}/settings`, sendJson(settings, 'PUT'), 'The settings were not saved');
}
