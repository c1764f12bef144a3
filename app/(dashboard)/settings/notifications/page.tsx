import type { Metadata } from 'next';
import { NotificationsAdmin } from '@/components/notifications-admin';
import { SettingsHeader } from '@/components/settings-header';
import { dashboardContext } from '@/lib/dashboard/context';
import { NOTIFICATION_EVENTS } from '@/lib/events/registry';
import { channelKindForms } from '@/lib/notifications/kinds/registry';

export const metadata: Metadata = { title: 'Notifications · Settings' };

export default async function NotificationsSettingsPage() {
  const context = await dashboardContext('/settings/notifications');
  if (!context.tenantId) return null;
  const events = Object.entries(NOTIFICATION_EVENTS).map(([name, { about }]) => ({ name, about }));
  return (
    <section aria-labelledby="notifications-heading" className="space-y-6" data-testid="notifications-page">
      <SettingsHeader id="notifications-heading" title="Notifications">
        Where {context.tenantName} hears about proposals: signed webhooks, Slack and email. Every message links to its
        proposal.
      </SettingsHeader>
      {context.role === 'admin' ? (
        <NotificationsAdmin kinds={channelKindForms()} events={events} />
      ) : (
        <p
          data-testid="notifications-admin-only"
          className="rounded-lg border border-zinc-200 bg-white p-6 dark:border-zinc-800 dark:bg-zinc-900"
        >
          Only admins manage notifications. You are {context.role === 'approver' ? 'an approver' : 'a viewer'} in{' '}
          {context.tenantName}; ask an admin to add a channel or change these settings.
        </p>
      )}
    </section>
  );
}
