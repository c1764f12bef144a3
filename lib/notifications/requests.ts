import { noFields, type RequestBody } from '@/lib/input/request-body';
import {
  type ChannelInput,
  type ChannelPatch,
  channelInput,
  channelPatch,
  type NotificationSettings,
  notificationSettingsInput,
} from './channels';
import { CHANNEL_KIND_NAMES } from './kinds/registry';

/** The request bodies of the notification admin API (`/api/v1/admin/notifications/…`). */

/** `POST …/channels`: `{kind, target, events?, digestThreshold?}`. */
export const channelCreateRequest: RequestBody<ChannelInput> = {
  schema: channelInput,
  code: 'invalid_channel',
  message:
    `The channel is not valid: send {"kind": ${CHANNEL_KIND_NAMES.map((kind) => `"${kind}"`).join(' | ')}, ` +
    `"target": …, "events": [...], "digestThreshold": 0–100}.`,
};

/** `PATCH …/channels/:id`: any of `{target, events, enabled, digestThreshold}`. */
export const channelChangeRequest: RequestBody<ChannelPatch> = {
  schema: channelPatch,
  code: 'invalid_channel',
  message: 'The change is not valid: send any of {"target", "events", "enabled", "digestThreshold"}.',
};

/** `PUT …/settings`: all three settings. */
export const notificationSettingsRequest: RequestBody<NotificationSettings> = {
  schema: notificationSettingsInput,
  code: 'invalid_settings',
  message: 'The settings are not valid: send {"reminderLeadMinutes", "escalateAfterMinutes", "notifyWithValues"}.',
};

/** `POST …/channels/:id/test`. */
export const channelTestRequest = noFields('invalid_test', 'Sending a test takes no fields; send {} or no body.');

/** `POST …/deliveries/:id/retry`. */
export const deliveryRetryRequest = noFields('invalid_retry', 'A retry takes no fields; send {} or no body.');
