import type { ContractStatusChanged } from '@/lib/api/responses/admin';
import { type ContractStatusRequest, contractStatusRequest } from '@/lib/contracts/requests';
import { contractRollout } from '@/lib/contracts/senders';
import { setContractStatus } from '@/lib/definitions/set-status';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/**
 * Moves one contract version in the admin's tenant (shadow, current, supported with or without a
 * sunset, retired); audited. An invalid transition is a 409 with its code (lib/contracts/rollout.ts).
 */
export const POST = adminMutation<ContractStatusRequest, { action: string; version: string }>(
  contractStatusRequest,
  async ({ db, admin, params, body }) => {
    const version = /^[1-9][0-9]{0,8}$/.test(params.version) ? Number(params.version) : undefined;
    if (version === undefined) throw notFound('contract version');
    const request = {
      status: body.status,
      ...(body.sunsetAt !== undefined ? { sunsetAt: body.sunsetAt === null ? null : new Date(body.sunsetAt) } : {}),
    };
    const { action, changed } = await setContractStatus(db, {
      tenantId: admin.tenantId,
      userId: admin.operator.userId,
      action: params.action,
      version,
      request,
    });
    const [view] = await contractRollout(db, admin.tenantId, [action]);
    return Response.json({ changed, action: view } satisfies ContractStatusChanged);
  },
);

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
