import { definitionList, publishDefinitionAnswer } from '@/lib/definitions/api';
import { definitionPublishRequest } from '@/lib/definitions/requests';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation, adminRoute } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/** The tenant's action definitions, the newest version of each. Admins only. */
export const GET = adminRoute(async ({ db, admin }) => Response.json(await definitionList(db, admin.tenantId)));

/**
 * Admins only: publishes the document as its action's next version, with the note (audited as
 * `action.published`). 201 published, 200 unchanged, 422 with the problems, 409 `stale_definition`.
 */
export const PUT = adminMutation(definitionPublishRequest, async ({ db, admin, body }) => {
  const by = { type: 'user' as const, id: admin.operator.userId };
  const { status, answer } = await publishDefinitionAnswer(db, admin.tenantId, by, body);
  return Response.json(answer, { status });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PATCH, DELETE, OPTIONS } = otherMethods({ GET, PUT });
