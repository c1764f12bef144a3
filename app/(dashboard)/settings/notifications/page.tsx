import type { Metadata } from 'next';
import Link from 'next/link';
import { NotificationsAdmin } from '@/components/notifications-admin';
import { dashboardContext } from '@/lib/dashboard/context';
import { NOTIFICATION_EVENTS } from '@/lib/events/registry';

export const metadata: Metadata = { title: 'Notifications · Settings' };

export default async function NotificationsSettingsPage() {
  const context = await dashboardContext('/settings/notifications');
  if (!context.tenantId) return null;
  const events = Object.entries(NOTIFICATION_EVENTS).map(([name, { about }]) => ({ name, about }));
  return (
    <section aria-labelledby="notifications-heading" className="space-y-6" data-testid="notifications-page">
      <div className="space-y-1">
        <Link href="/settings" className="text-sm underline underline-offset-2">← Settings</Link>
        <h1 id="notifications-heading" className="text-xl font-semibold">Notifications</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Where {context.tenantName} hears about proposals: signed webhooks, Slack and email. Every message links to its proposal.
        </p>
      </div>
      {context.role === 'admin' ? (
        <NotificationsAdmin events={events} />
      ) : (
        <p data-testid="notifications-admin-only" className="rounded-lg border border-zinc-200 bg-white p-6 dark:border-zinc-800 dark:bg-zinc-900">
          Only admins manage notifications. You are {context.role === 'approver' ? 'an approver' : 'a viewer'} in {context.tenantName}; ask an admin to add a channel or change these settings.
        </p>
      )}
    </section>
  );
}
