import type { Metadata } from 'next';
import Link from 'next/link';
import { AgentKeysAdmin } from '@/components/agent-keys-admin';
import { SettingsHeader } from '@/components/settings-header';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import { tenantActions } from '@/lib/definitions/catalog';

export const metadata: Metadata = { title: 'Agent keys · Settings' };

export default async function AgentKeysSettingsPage() {
  const context = await dashboardContext('/settings/agent-keys');
  if (!context.tenantId) return null;
  // The shipped actions and the tenant's own definitions.
  const actions = (await tenantActions(await getDb(), context.tenantId)).map((action) => ({
    name: action.name,
    title: action.title,
    grants: action.grants ?? [],
  }));
  return (
    <section aria-labelledby="agent-keys-page-heading" className="space-y-6" data-testid="agent-keys-page">
      <SettingsHeader id="agent-keys-page-heading" title="Agent keys">
        Each key lets one agent propose the actions it names in {context.tenantName}, within its grants. A key is shown
        once; rotate it to replace it without downtime, revoke it to stop it at once.
      </SettingsHeader>
      {context.role === 'admin' ? (
        <AgentKeysAdmin actions={actions} />
      ) : (
        <p
          data-testid="agent-keys-admin-only"
          className="rounded-lg border border-zinc-200 bg-white p-6 dark:border-zinc-800 dark:bg-zinc-900"
        >
          Only admins issue, rotate and revoke agent keys. You are{' '}
          {context.role === 'approver' ? 'an approver' : 'a viewer'} in {context.tenantName}; the keys and their actions
          are listed on{' '}
          <Link href="/settings" className="underline underline-offset-2">
            Settings
          </Link>
          . Ask an admin for a new key or to revoke one.
        </p>
      )}
    </section>
  );
}
