import type { PolicyPlanAnswer } from '@/lib/api/responses/admin';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import { backtestDays, planPolicies } from '@/lib/policy/plan';
import { policyJsonBody } from '@/lib/policy/requests';

export const dynamic = 'force-dynamic';

/**
 * Admins only: the document `PUT` takes, planned — the change in words and the backtest of the last
 * `days` days (query parameter, 1–365, default 30). Writes nothing.
 */
export const POST = adminMutation(policyJsonBody, async ({ db, admin, body, request }) => {
  const days = backtestDays(new URL(request.url).searchParams.get('days'));
  return Response.json((await planPolicies(db, admin.tenantId, body, days)) satisfies PolicyPlanAnswer);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
