import type { EmptyRequest } from '@/lib/input/request-body';
import type { RevokedAgentKey } from '@/lib/api/responses/admin';
import { agentKeyRevokeRequest } from '@/lib/admin/agent-key-requests';
import { revokeKey } from '@/lib/admin/agent-keys';
import { adminMutation } from '@/lib/http/operator-route';
import { notFound } from '@/lib/errors/domain-error';
import { otherMethods } from '@/lib/http/methods';

export const dynamic = 'force-dynamic';

/** Revokes a key of this tenant at once (audited); another tenant's id is the same 404 as an unknown one. */
export const POST = adminMutation<EmptyRequest, { id: string }>(agentKeyRevokeRequest, async ({ db, admin, params }) => {
  const agentKey = await revokeKey(db, admin.tenantId, { type: 'user', id: admin.operator.userId }, params.id);
  if (!agentKey) throw notFound('agent key');
  return Response.json({ agentKey } satisfies RevokedAgentKey);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
