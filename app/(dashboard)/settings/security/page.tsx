import type { Metadata } from 'next';
import { PasskeysSettings } from '@/components/passkeys-settings';
import { SettingsHeader } from '@/components/settings-header';
import { dashboardContext } from '@/lib/dashboard/context';

export const metadata: Metadata = { title: 'Security · Settings' };

export default async function SecuritySettingsPage() {
  await dashboardContext('/settings/security');
  return (
    <section aria-labelledby="security-page-heading" className="space-y-6" data-testid="security-page">
      <SettingsHeader id="security-page-heading" title="Security">
        Your own passkeys, in every tenant you belong to. Where a routing rule or the tenant asks for it, an approval must be signed with one; any decision may be.
      </SettingsHeader>
      <PasskeysSettings />
    </section>
  );
}
