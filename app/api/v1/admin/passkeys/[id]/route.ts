import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import { removePasskey } from '@/lib/passkeys/removal';
import { passkeyRemoveRequest } from '@/lib/passkeys/requests';

export const dynamic = 'force-dynamic';

/**
 * An admin removes a member's passkey (lost, or their last where passkeys are required): audited `passkey.removed`,
 * `admin_reset`.
 */
export const DELETE = adminMutation<Record<string, never>, { id: string }>(
  passkeyRemoveRequest,
  async ({ db, admin, params }) => {
    const passkey = await removePasskey(
      db,
      { kind: 'admin', userId: admin.operator.userId, tenantId: admin.tenantId },
      params.id,
    );
    return Response.json({ passkey });
  },
);

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, POST, PUT, PATCH, OPTIONS } = otherMethods({ DELETE });
