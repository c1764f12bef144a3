import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '@/db';
import { tenants } from '@/db/schema';
import { recordStateChange } from '@/lib/events/record';
import type { RequestBody } from '@/lib/input/request-body';
import type { OversightSettings } from './figures';

/** The rubber-stamp alarm's settings; 0 in any of them turns the alarm off. */
export const oversightSettingsInput = z.strictObject({
  minDecisions: z.int({ error: 'must be a whole number of decisions' }).min(0).max(100_000),
  approvalRatePercent: z.int({ error: 'must be a whole percentage' }).min(0).max(100),
  medianDwellSeconds: z.int({ error: 'must be a whole number of seconds' }).min(0).max(3_600),
});

/** `PUT /api/v1/admin/oversight/settings`. */
export const oversightSettingsRequest: RequestBody<OversightSettings> = {
  schema: oversightSettingsInput,
  code: 'invalid_settings',
  message:
    'The settings are not valid: send {"minDecisions", "approvalRatePercent", "medianDwellSeconds"} (0 in any ' +
    'turns the alarm off).',
};

/**
 * Replaces the tenant's rubber-stamp settings; audited as `tenant.settings_changed`. Undefined for an unknown tenant.
 */
export async function updateOversightSettings(
  db: Database,
  tenantId: string,
  actor: { type: 'user' | 'system'; id: string },
  settings: OversightSettings,
  now = new Date(),
) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(tenants)
      .set({
        oversightMinDecisions: settings.minDecisions,
        oversightApprovalRatePercent: settings.approvalRatePercent,
        oversightMedianDwellSeconds: settings.medianDwellSeconds,
      })
      .where(eq(tenants.id, tenantId))
      .returning({ id: tenants.id });
    if (!row) return undefined;
    await recordStateChange(tx, {
      tenantId,
      type: 'tenant.settings_changed',
      actor,
      data: { ...settings },
      occurredAt: now,
      outbox: false,
    });
    return settings;
  });
}
