import type { ContractRolloutList } from '@/lib/api/responses/admin';
import { contractRollout } from '@/lib/contracts/senders';
import { tenantActions } from '@/lib/definitions/catalog';
import { otherMethods } from '@/lib/http/methods';
import { adminRoute } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/** Each action's versions with the tenant's status and sunset, and the agents still sending each. */
export const GET = adminRoute(async ({ db, admin }) => {
  const actions = await contractRollout(db, admin.tenantId, await tenantActions(db, admin.tenantId));
  return Response.json({ actions } satisfies ContractRolloutList);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
