import type { Metadata } from 'next';
import { type ActionOption, PolicyAdmin } from '@/components/policy-admin';
import { SettingsHeader } from '@/components/settings-header';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import { tenantActions } from '@/lib/definitions/catalog';
import { CURRENCY_CODES } from '@/lib/money';
import { recentSampleArgs } from '@/lib/policy/current';
import { numericFields } from '@/lib/policy/validate';

export const metadata: Metadata = { title: 'Routing policies · Settings' };

export default async function PoliciesSettingsPage() {
  const context = await dashboardContext('/settings/policies');
  if (!context.tenantId) return null;
  const canEdit = context.role === 'admin';
  const db = await getDb();
  const actions: ActionOption[] = await Promise.all(
    (await tenantActions(db, context.tenantId)).map(async (action) => {
      const sampleArgs = canEdit ? await recentSampleArgs(db, context.tenantId!, action.name) : {};
      const money = action.editing?.money ?? [];
      // Money bounds are typed in the currency of the newest proposal at first (else USD); the editor can switch.
      const sampled = money
        .map((each) => sampleArgs[each.currencyField])
        .find((value): value is string => typeof value === 'string' && CURRENCY_CODES.includes(value));
      return {
        name: action.name,
        title: action.title,
        fields: numericFields(action),
        money: money.map((each) => each.field),
        currency: sampled ?? 'USD',
        sampleArgs,
      };
    }),
  );
  const role = context.role === 'approver' ? 'an approver' : 'a viewer';
  return (
    <section aria-labelledby="policies-heading" className="space-y-6" data-testid="policies-page">
      <SettingsHeader id="policies-heading" title="Routing policies">
        How {context.tenantName} routes each action’s proposals: auto-approve, a number of distinct approvers, or deny.
        Every save is a new, immutable version that routes new proposals only; a pending proposal keeps the routing it
        was given.
      </SettingsHeader>
      {canEdit ? null : (
        <p data-testid="policies-read-only" className="text-sm text-zinc-600 dark:text-zinc-400">
          Read-only: only admins change policies. You are {role} in {context.tenantName}.
        </p>
      )}
      <PolicyAdmin actions={actions} canEdit={canEdit} />
    </section>
  );
}
