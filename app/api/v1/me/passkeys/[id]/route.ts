import { otherMethods } from '@/lib/http/methods';
import { accountMutation } from '@/lib/http/operator-route';
import { removePasskey } from '@/lib/passkeys/removal';
import { passkeyRemoveRequest } from '@/lib/passkeys/requests';

export const dynamic = 'force-dynamic';

/**
 * Removes one of the signed-in person's passkeys (audited); their last, where a tenant of theirs requires passkeys, is
 * refused `last_passkey`.
 */
export const DELETE = accountMutation<Record<string, never>, { id: string }>(
  passkeyRemoveRequest,
  async ({ db, operator, params }) => {
    const passkey = await removePasskey(db, { kind: 'owner', userId: operator.userId }, params.id);
    return Response.json({ passkey });
  },
);

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, POST, PUT, PATCH, OPTIONS } = otherMethods({ DELETE });
