import type { SettingsAnswer } from '@/lib/api/responses/admin';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import { updateNotificationSettings } from '@/lib/notifications/channels';
import { notificationSettingsRequest } from '@/lib/notifications/requests';

export const dynamic = 'force-dynamic';

/** Replaces the tenant's notification settings (reminder lead, escalation, argument values opt-in); audited. */
export const PUT = adminMutation(notificationSettingsRequest, async ({ db, admin, body }) => {
  const settings = await updateNotificationSettings(
    db,
    admin.tenantId,
    { type: 'user', id: admin.operator.userId },
    body,
  );
  if (!settings) throw notFound('tenant');
  return Response.json({ settings } satisfies SettingsAnswer);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, POST, PATCH, DELETE, OPTIONS } = otherMethods({ PUT });
