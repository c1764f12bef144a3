import type { PolicyList, PolicySaveAnswer } from '@/lib/api/responses/admin';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation, memberRead } from '@/lib/http/operator-route';
import { currentPolicies } from '@/lib/policy/current';
import { policyJsonBody } from '@/lib/policy/requests';
import { savePolicies } from '@/lib/policy/save';

export const dynamic = 'force-dynamic';

/** The tenant's routing policy document: every action's newest version. Every member may read it. */
export const GET = memberRead(async ({ db, member }) =>
  Response.json({ policies: await currentPolicies(db, member.tenantId) } satisfies PolicyList),
);

/**
 * Admins only: the document back, edited. Each changed action gets a new immutable version (one
 * transaction, audited); 409 `stale_policy` when an edited version is no longer the newest.
 */
export const PUT = adminMutation(policyJsonBody, async ({ db, admin, body }) => {
  const result = await savePolicies(db, admin.tenantId, { type: 'user', id: admin.operator.userId }, body);
  return Response.json(result satisfies PolicySaveAnswer);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PATCH, DELETE, OPTIONS } = otherMethods({ GET, PUT });
