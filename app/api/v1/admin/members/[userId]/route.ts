import { asMemberApi, changeRole, removeMembership } from '@/lib/admin/members';
import { deletionRequest, type RoleChange, roleChangeRequest } from '@/lib/admin/requests';
import type { MemberRemoved, RoleChanged } from '@/lib/api/responses/admin';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import type { EmptyRequest } from '@/lib/input/request-body';

export const dynamic = 'force-dynamic';

type Params = { userId: string };

/** Changes a member's role; it holds from their next request. Never demotes the last admin (409 `last_admin`). */
export const PATCH = adminMutation<RoleChange, Params>(roleChangeRequest, async ({ db, admin, params, body }) => {
  const actor = { type: 'user' as const, id: admin.operator.userId };
  const changed = await asMemberApi(() =>
    changeRole(db, { tenantId: admin.tenantId, userId: params.userId, role: body.role, actor }),
  );
  return Response.json({
    member: { userId: changed.userId, role: changed.role, previousRole: changed.previousRole },
  } satisfies RoleChanged);
});

/**
 * Removes a member: their access here ends at their next request (their sessions stay). Never the last admin (409
 * `last_admin`); a non-member is a 404.
 */
export const DELETE = adminMutation<EmptyRequest, Params>(deletionRequest, async ({ db, admin, params }) => {
  const actor = { type: 'user' as const, id: admin.operator.userId };
  const removed = await asMemberApi(() =>
    removeMembership(db, { tenantId: admin.tenantId, userId: params.userId, actor }),
  );
  return Response.json({ removed } satisfies MemberRemoved);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, POST, PUT, OPTIONS } = otherMethods({ PATCH, DELETE });
