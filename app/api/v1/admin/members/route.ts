import { createInvitation, pendingInvitations } from '@/lib/admin/invitations';
import { listMembers } from '@/lib/admin/listing';
import { asMemberApi } from '@/lib/admin/members';
import { invitationRequest } from '@/lib/admin/requests';
import type { InvitationCreated, MemberList } from '@/lib/api/responses/admin';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation, adminRoute } from '@/lib/http/operator-route';
import { publicOrigin } from '@/lib/http/origin';

export const dynamic = 'force-dynamic';

/** Settings → Members: the tenant's members and its pending invitations (never a token). */
export const GET = adminRoute(async ({ db, admin }) => {
  const [members, invitations] = await Promise.all([
    listMembers(db, admin.tenantId),
    pendingInvitations(db, admin.tenantId),
  ]);
  return Response.json({ members, invitations } satisfies MemberList);
});

/** Invites someone: the one-time link is in this answer and never again. A member already here is a 409. */
export const POST = adminMutation(invitationRequest, async ({ db, admin, request, body }) => {
  const { token, invitation } = await asMemberApi(() =>
    createInvitation(db, { ...body, tenantId: admin.tenantId, invitedBy: admin.operator.userId }),
  );
  return Response.json(
    { invitationUrl: `${publicOrigin(request)}/invite/${token}`, invitation } satisfies InvitationCreated,
    { status: 201, headers: { 'cache-control': 'no-store' } },
  );
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
