'use client';

import { useQuery } from '@tanstack/react-query';
import { fetchNotifications } from '@/lib/client/notifications-api';
import { valueOrThrow } from '@/lib/client/operator-api';
import type { ChannelKindForm } from '@/lib/notifications/kinds/types';
import { AdminQuery } from './admin-query';
import { NOTIFICATIONS_KEY, NotificationChannels } from './notification-channels';
import { NotificationDeliveries } from './notification-deliveries';
import { NotificationSettingsForm } from './notification-settings-form';
import { type EventOption, Panel } from './notification-ui';

/** The delivery log changes as the worker sends (every second): look again every few seconds. */
const REFRESH_MS = 3_000;

/** Settings → Notifications for an admin: channels, the tenant's settings, and the delivery log. */
export function NotificationsAdmin({ kinds, events }: { kinds: ChannelKindForm[]; events: EventOption[] }) {
  const query = useQuery({
    queryKey: NOTIFICATIONS_KEY,
    queryFn: async () => valueOrThrow(await fetchNotifications()),
    refetchInterval: REFRESH_MS,
  });
  return (
    <AdminQuery query={query} name="notifications" what="the notification settings" heights={[7, 14, 12]}>
      {({ settings, channels, deliveries }) => (
        <>
          <Panel title="Channels" id="channels-heading" testId="channels-panel">
            <NotificationChannels channels={channels} kinds={kinds} events={events} />
          </Panel>
          <Panel title="Reminders, escalation and message contents" id="settings-heading" testId="settings-panel">
            <NotificationSettingsForm initial={settings} />
          </Panel>
          <Panel title="Recent deliveries" id="deliveries-heading" testId="deliveries-panel">
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              The last 50, newest first, refreshed every few seconds. Times are in your time zone.
            </p>
            <NotificationDeliveries deliveries={deliveries} />
          </Panel>
        </>
      )}
    </AdminQuery>
  );
}
