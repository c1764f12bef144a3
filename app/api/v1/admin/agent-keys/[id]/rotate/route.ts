import { agentKeyRotateRequest } from '@/lib/admin/agent-key-requests';
import { type RotationInput, rotateAgentKey } from '@/lib/admin/agent-keys';
import type { IssuedAgentKey } from '@/lib/api/responses/admin';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/**
 * Replaces a key by a new one (shown once); the old one works for `overlapMinutes` more. Another tenant's id is a 404.
 */
export const POST = adminMutation<RotationInput, { id: string }>(
  agentKeyRotateRequest,
  async ({ db, admin, params, body }) => {
    const rotated = await rotateAgentKey(
      db,
      admin.tenantId,
      { type: 'user', id: admin.operator.userId },
      params.id,
      body,
    );
    if (!rotated) throw notFound('agent key');
    return Response.json(rotated satisfies IssuedAgentKey, { status: 201 });
  },
);

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
