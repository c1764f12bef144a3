import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import { oversightSettingsRequest, updateOversightSettings } from '@/lib/oversight/settings';

export const dynamic = 'force-dynamic';

/** Replaces the tenant's rubber-stamp alarm settings (0 in any turns it off); audited. */
export const PUT = adminMutation(oversightSettingsRequest, async ({ db, admin, body }) => {
  const settings = await updateOversightSettings(db, admin.tenantId, { type: 'user', id: admin.operator.userId }, body);
  if (!settings) throw notFound('tenant');
  return Response.json({ settings });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, POST, PATCH, DELETE, OPTIONS } = otherMethods({ PUT });
