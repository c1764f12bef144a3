import { createGrant } from '@/lib/grants/create';
import { grantsQuery, grantView, listGrants } from '@/lib/grants/list';
import { grantRequest } from '@/lib/grants/requests';
import { otherMethods } from '@/lib/http/methods';
import { memberMutation, memberRead } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/**
 * Every member of the tenant in view (viewers too): its standing grants, newest first, 50 a page
 * (`?state=active` for those that still cover something; `?cursor=` from `nextCursor`).
 */
export const GET = memberRead(async ({ db, member, request }) => {
  const query = grantsQuery(new URL(request.url).searchParams);
  return Response.json(await listGrants(db, member.tenantId, query));
});

/**
 * An approver makes a standing grant from a proposal they approved (docs/grants.md): 201 with the
 * grant. The tenant is the session's; the granter is the signed-in person.
 */
export const POST = memberMutation(grantRequest, async ({ db, member, body }) => {
  const grant = await createGrant(db, { tenantId: member.tenantId, userId: member.operator.userId, request: body });
  return Response.json(grantView(grant, member.operator.name ?? null, new Date()), { status: 201 });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
