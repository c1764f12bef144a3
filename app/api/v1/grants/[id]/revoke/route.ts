import { revokeGrant } from '@/lib/grants/end';
import { type RevokeRequest, revokeRequest } from '@/lib/grants/requests';
import { otherMethods } from '@/lib/http/methods';
import { memberMutation } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/**
 * The granter or an admin ends a standing grant at once (optional `{"reason"}`): 200 with the
 * grant as it now stands. Another tenant's or an unknown id is 404; an ended one 409 `grant_ended`.
 */
export const POST = memberMutation<RevokeRequest, { id: string }>(
  revokeRequest,
  async ({ db, member, params, body }) => {
    return Response.json(
      await revokeGrant(db, {
        by: { type: 'user', id: member.operator.userId, tenantId: member.tenantId },
        grantId: params.id,
        reason: body.reason,
      }),
    );
  },
);

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
