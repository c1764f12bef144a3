import { getDb } from '@/lib/database';
import type { PolicyList, PolicySaveAnswer } from '@/lib/api/responses/admin';
import { errorResponse } from '@/lib/http/errors';
import { adminMutation } from '@/lib/http/operator-route';
import { requireMember } from '@/lib/http/principal';
import { currentPolicies } from '@/lib/policy/current';
import { policyJsonBody } from '@/lib/policy/requests';
import { savePolicies } from '@/lib/policy/save';

export const dynamic = 'force-dynamic';

/** The tenant's routing policy document: every action's newest version. Every member may read it. */
export async function GET(request: Request): Promise<Response> {
  try {
    const db = await getDb();
    const member = await requireMember(db, request);
    return Response.json({ policies: await currentPolicies(db, member.tenantId) } satisfies PolicyList);
  } catch (error) {
    return errorResponse(error);
  }
}

/**
 * Admins only: the document back, edited. Each changed action gets a new immutable version (one
 * transaction, audited); 409 `stale_policy` when an edited version is no longer the newest.
 */
export const PUT = adminMutation(policyJsonBody, async ({ db, admin, body }) => {
  const result = await savePolicies(db, admin.tenantId, { type: 'user', id: admin.operator.userId }, body);
  return Response.json(result satisfies PolicySaveAnswer);
});
