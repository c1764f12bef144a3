import type { Metadata } from 'next';
import Link from 'next/link';
import { ExecutionsControl } from '@/components/executions-control';
import { PayloadText } from '@/components/payload-text';
import { absoluteTime } from '@/components/time';
import { Cell, Table } from '@/components/ui/table';
import { listAgentKeys, listMembers } from '@/lib/admin/listing';
import { executionsState } from '@/lib/commands/executions-pause';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';

export const metadata: Metadata = { title: 'Settings' };

/** The administration pages: admins change things there; everyone else reads. */
const SECTIONS = [
  {
    href: '/settings/agent-keys',
    testId: 'settings-agent-keys-link',
    title: 'Agent keys',
    about: 'Issue, rotate and revoke the keys agents propose with.',
  },
  {
    href: '/settings/members',
    testId: 'settings-members-link',
    title: 'Members',
    about: 'Invite people by one-time link, change roles, remove members.',
  },
  {
    href: '/settings/policies',
    testId: 'settings-policies-link',
    title: 'Routing policies',
    about: 'Who must approve what: rules per action, versioned, with a preview.',
  },
  {
    href: '/settings/notifications',
    testId: 'settings-notifications-link',
    title: 'Notifications',
    about: 'Webhooks, Slack and email channels, reminders and escalation, and the delivery log.',
  },
  {
    href: '/settings/security',
    testId: 'settings-security-link',
    title: 'Security',
    about:
      'Your passkeys: add, name and remove the keys that sign your decisions. Admins: require one on every approval.',
  },
];

export default async function SettingsPage() {
  const context = await dashboardContext('/settings');
  if (!context.tenantId) return null;
  const db = await getDb();
  const [keys, members, executions] = await Promise.all([
    listAgentKeys(db, context.tenantId),
    listMembers(db, context.tenantId),
    executionsState(db, context.tenantId),
  ]);
  return (
    <section aria-labelledby="settings-heading" className="space-y-6">
      <h1 id="settings-heading" className="text-xl font-semibold">
        Settings
      </h1>
      <p className="text-sm text-zinc-500">
        Everything here is also an HTTP API and, for a new tenant, <code className="font-mono">npm run cli</code> (see
        the README).
      </p>
      <nav aria-label="Administration" className="grid gap-3 sm:grid-cols-2">
        {SECTIONS.map((section) => (
          <Link
            key={section.href}
            href={section.href}
            data-testid={section.testId}
            className={
              'rounded-lg border border-zinc-200 bg-white p-4 hover:border-zinc-400 focus-visible:outline-2 ' +
              'dark:border-zinc-800 dark:bg-zinc-900 dark:hover:border-zinc-600'
            }
          >
            <span className="font-medium underline underline-offset-2">{section.title} →</span>
            <span className="mt-1 block text-sm text-zinc-600 dark:text-zinc-400">{section.about}</span>
          </Link>
        ))}
      </nav>
      {context.role === 'admin' ? <ExecutionsControl paused={Boolean(executions?.paused)} /> : null}
      <div className="space-y-2">
        <h2 className="font-semibold">Agents</h2>
        <Table head={['Agent', 'Key', 'Actions', 'Grants', 'Created', 'State']} testId="agent-keys">
          {keys.map((key) => (
            <tr key={key.id}>
              <Cell>
                <PayloadText value={key.agentName} mono={false} />
              </Cell>
              <Cell mono>{key.keyPrefix}…</Cell>
              <Cell mono>{key.allowedActions.join(', ')}</Cell>
              <Cell mono>
                {Object.entries(key.grants)
                  .map(([name, values]) => `${name}: ${values.join(', ')}`)
                  .join('; ') || '—'}
              </Cell>
              <Cell>{absoluteTime(key.createdAt)}</Cell>
              <Cell>{key.revokedAt ? `revoked ${absoluteTime(key.revokedAt)}` : 'active'}</Cell>
            </tr>
          ))}
        </Table>
      </div>
      <div className="space-y-2">
        <h2 className="font-semibold">Members</h2>
        <Table head={['Name', 'Email', 'Role']} testId="members">
          {members.map((member) => (
            <tr key={member.userId}>
              <Cell>{member.name}</Cell>
              <Cell mono>{member.email}</Cell>
              <Cell>{member.role}</Cell>
            </tr>
          ))}
        </Table>
      </div>
    </section>
  );
}
