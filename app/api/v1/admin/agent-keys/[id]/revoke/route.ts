import { agentKeyRevokeRequest } from '@/lib/admin/agent-key-requests';
import { type RevocationInput, revokeAgentKeys } from '@/lib/admin/agent-keys';
import type { RevokedAgentKey } from '@/lib/api/responses/admin';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/**
 * Revokes a key of this tenant at once, or with `{"scope": "agent"}` every key of its agent that
 * still works (audited); the answer names the agent's keys that still work and until when. Another
 * tenant's id is the same 404 as an unknown one.
 */
export const POST = adminMutation<RevocationInput, { id: string }>(
  agentKeyRevokeRequest,
  async ({ db, admin, params, body }) => {
    const revocation = await revokeAgentKeys(
      db,
      admin.tenantId,
      { type: 'user', id: admin.operator.userId },
      params.id,
      body.scope ?? 'key',
    );
    if (!revocation) throw notFound('agent key');
    return Response.json(revocation satisfies RevokedAgentKey);
  },
);

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
