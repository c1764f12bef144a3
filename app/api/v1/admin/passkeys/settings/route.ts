import type { PasskeySettingsAnswer } from '@/lib/api/responses/passkeys';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import { passkeySettingsRequest } from '@/lib/passkeys/requests';
import { setPasskeysRequired } from '@/lib/passkeys/tenant-setting';

export const dynamic = 'force-dynamic';

/**
 * Turns "every approval must be signed with a passkey" on or off in the admin's tenant, audited;
 * turning it on ends the tenant's standing grants. An admin without a passkey may turn it on (the
 * others may have one): the dashboard warns them, the answer does not refuse.
 */
export const PUT = adminMutation(passkeySettingsRequest, async ({ db, admin, body }) => {
  const result = await setPasskeysRequired(db, admin.tenantId, body.requirePasskeys, {
    type: 'user',
    id: admin.operator.userId,
  });
  if (!result) throw notFound('tenant');
  return Response.json({
    requirePasskeys: body.requirePasskeys,
    changed: result.changed,
  } satisfies PasskeySettingsAnswer);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, POST, PATCH, DELETE, OPTIONS } = otherMethods({ PUT });
