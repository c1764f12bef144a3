import type { Metadata } from 'next';
import { PasskeysSettings } from '@/components/passkeys-settings';
import { SettingsHeader } from '@/components/settings-header';
import { TenantPasskeysSetting } from '@/components/tenant-passkeys-setting';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import { tenantPasskeys } from '@/lib/passkeys/tenant-setting';

export const metadata: Metadata = { title: 'Security · Settings' };

export default async function SecuritySettingsPage() {
  const context = await dashboardContext('/settings/security');
  // Only an admin of the tenant in view changes its setting (the API re-checks the role).
  const admin = context.tenantId !== null && context.role === 'admin' ? context : null;
  const setting = admin ? await tenantPasskeys(await getDb(), admin.tenantId, admin.operator.userId) : undefined;
  return (
    <section aria-labelledby="security-page-heading" className="space-y-6" data-testid="security-page">
      <SettingsHeader id="security-page-heading" title="Security">
        Your own passkeys, in every tenant you belong to. Where a routing rule or the tenant asks for it, an approval
        must be signed with one; any decision may be.
      </SettingsHeader>
      <PasskeysSettings />
      {admin && setting ? <TenantPasskeysSetting tenantName={admin.tenantName} setting={setting} /> : null}
    </section>
  );
}
