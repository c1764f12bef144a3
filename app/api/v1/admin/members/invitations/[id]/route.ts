import { cancelInvitation } from '@/lib/admin/invitations';
import { deletionRequest } from '@/lib/admin/requests';
import type { InvitationCancelled } from '@/lib/api/responses/admin';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import type { EmptyRequest } from '@/lib/input/request-body';

export const dynamic = 'force-dynamic';

/** Cancels a pending invitation of this tenant: its link stops working. Anything else is a 404. */
export const DELETE = adminMutation<EmptyRequest, { id: string }>(deletionRequest, async ({ db, admin, params }) => {
  const invitation = await cancelInvitation(db, {
    tenantId: admin.tenantId,
    invitationId: params.id,
    actorId: admin.operator.userId,
  });
  return Response.json({ invitation } satisfies InvitationCancelled);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, POST, PUT, PATCH, OPTIONS } = otherMethods({ DELETE });
