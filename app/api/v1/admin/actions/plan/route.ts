import { definitionPlan } from '@/lib/definitions/api';
import { definitionPlanRequest } from '@/lib/definitions/requests';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/** Admins only: what `actions:plan` says of the document against the tenant's current version. Writes nothing. */
export const POST = adminMutation(definitionPlanRequest, async ({ db, admin, body }) =>
  Response.json(await definitionPlan(db, admin.tenantId, body.document)),
);

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
