import { getDb } from '@/db';
import { ApiError, errorResponse } from '@/lib/http/errors';
import { requireOperator } from '@/lib/http/principal';
import { parseQueueParams, pendingQueue } from '@/lib/proposals/queue';

export const dynamic = 'force-dynamic';

/**
 * The operator's queue: `?tenant=<id>&action=&agent=&risk=&sort=expiring|newest|oldest&cursor=<opaque>`;
 * the tenant must be one of theirs. Unknown parameters or values are a 400 that says which.
 */
export async function GET(request: Request) {
  try {
    const db = await getDb();
    const operator = await requireOperator(db);
    const parsed = parseQueueParams(new URL(request.url).searchParams);
    if (!parsed.ok) throw new ApiError(400, 'malformed', 'invalid_query', parsed.messages.join(' '), { messages: parsed.messages });
    const { tenant, cursor, ...view } = parsed.params;
    const tenantId = tenant ?? operator.memberships[0]?.tenantId;
    if (!tenantId || !operator.memberships.some((m) => m.tenantId === tenantId)) {
      throw new ApiError(404, 'not_found', 'not_found', 'No tenant with that id.');
    }
    return Response.json(await pendingQueue(db, tenantId, view, cursor));
  } catch (error) {
    return errorResponse(error);
  }
}
