import { memberMutation } from '@/lib/http/operator-route';
import { otherMethods } from '@/lib/http/methods';
import { recordView, viewRequest } from '@/lib/oversight/views';

export const dynamic = 'force-dynamic';

/**
 * Records that the signed-in member first opened the proposal (queue preview, approve dialog) in
 * the tenant they are looking at: once per person and proposal, so calling it again changes
 * nothing (200 `{"recorded": false}`). Another tenant's or an unknown id is 404 and writes nothing.
 */
export const POST = memberMutation<{ channel: 'notification' | 'queue' | 'page' }, { id: string }>(viewRequest, async ({ db, member, params, body }) => {
  const result = await recordView(db, { tenantId: member.tenantId, userId: member.operator.userId, proposalId: params.id, channel: body.channel });
  return Response.json(result);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
