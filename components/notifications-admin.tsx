'use client';

import { useQuery } from '@tanstack/react-query';
import { valueOrThrow } from '@/lib/client/operator-api';
import { fetchNotifications } from '@/lib/client/notifications-api';
import { NOTIFICATIONS_KEY, NotificationChannels } from './notification-channels';
import { NotificationDeliveries } from './notification-deliveries';
import { NotificationSettingsForm } from './notification-settings-form';
import { LoadProblem, Panel, type EventOption } from './notification-ui';

/** The delivery log changes as the worker sends (every second): look again every few seconds. */
const REFRESH_MS = 3_000;

function Skeleton() {
  return (
    <div data-testid="notifications-loading" aria-busy="true" aria-label="Loading notifications" className="space-y-4">
      {[7, 14, 12].map((rem, i) => (
        <div key={i} className="animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" style={{ height: `${rem}rem` }} />
      ))}
    </div>
  );
}

/** Settings → Notifications for an admin: channels, the tenant's settings, and the delivery log. */
export function NotificationsAdmin({ events }: { events: EventOption[] }) {
  const query = useQuery({ queryKey: NOTIFICATIONS_KEY, queryFn: async () => valueOrThrow(await fetchNotifications()), refetchInterval: REFRESH_MS });
  if (query.isPending) return <Skeleton />;
  if (!query.data) {
    return <LoadProblem what="The notification settings" error={query.error} onRetry={() => void query.refetch()} testId="notifications-error" />;
  }
  const { settings, channels, deliveries } = query.data;
  return (
    <div className="space-y-8">
      {query.isRefetchError ? (
        <p role="status" data-testid="notifications-stale" className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm dark:border-amber-800 dark:bg-amber-950">
          Could not refresh ({query.error.message}); showing what was loaded before.
        </p>
      ) : null}
      <Panel title="Channels" id="channels-heading" testId="channels-panel">
        <NotificationChannels channels={channels} events={events} />
      </Panel>
      <Panel title="Reminders, escalation and message contents" id="settings-heading" testId="settings-panel">
        <NotificationSettingsForm initial={settings} />
      </Panel>
      <Panel title="Recent deliveries" id="deliveries-heading" testId="deliveries-panel">
        <p className="text-sm text-zinc-600 dark:text-zinc-400">The last 50, newest first, refreshed every few seconds. Times are in your time zone.</p>
        <NotificationDeliveries deliveries={deliveries} />
      </Panel>
    </div>
  );
}
