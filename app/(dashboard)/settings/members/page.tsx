import type { Metadata } from 'next';
import { MemberTable } from '@/components/member-table';
import { MembersAdmin } from '@/components/members-admin';
import { SettingsHeader } from '@/components/settings-header';
import { listMembers } from '@/lib/admin/listing';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';

export const metadata: Metadata = { title: 'Members · Settings' };

export default async function MembersSettingsPage() {
  const context = await dashboardContext('/settings/members');
  if (!context.tenantId) return null;
  const admin = context.role === 'admin';
  // Everyone sees who belongs; only an admin changes it (through the admin API, re-checked there).
  const members = admin
    ? []
    : (await listMembers(await getDb(), context.tenantId)).map((m) => ({ ...m, joinedAt: m.joinedAt.toISOString() }));
  return (
    <section aria-labelledby="members-page-heading" className="space-y-6" data-testid="members-page">
      <SettingsHeader id="members-page-heading" title="Members">
        Who may see and decide {context.tenantName}’s proposals: viewers look, approvers decide, admins also manage
        members, agents and notifications.
      </SettingsHeader>
      {admin ? (
        <MembersAdmin currentUserId={context.operator.userId} tenantName={context.tenantName} />
      ) : (
        <div className="space-y-3">
          <p data-testid="members-read-only" className="text-sm">
            Only admins invite people and change roles. You are{' '}
            {context.role === 'approver' ? 'an approver' : 'a viewer'} in {context.tenantName}.
          </p>
          <MemberTable members={members} />
        </div>
      )}
    </section>
  );
}
