import { tenantActions } from '@/lib/contracts/catalog';
import type { ContractRolloutList } from '@/lib/api/responses/admin';
import { contractRollout } from '@/lib/contracts/senders';
import { adminRoute } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/** Each action's versions with the tenant's status and sunset, and the agents still sending each. */
export const GET = adminRoute(async ({ db, admin }) => {
  const actions = await contractRollout(db, admin.tenantId, await tenantActions(db, admin.tenantId));
  return Response.json({ actions } satisfies ContractRolloutList);
});
