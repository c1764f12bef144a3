import { getDb } from '@/lib/database';
import type { QueuePage } from '@/lib/api/responses/reads';
import { ApiError, errorResponse } from '@/lib/http/errors';
import { requireOperator } from '@/lib/http/principal';
import { parseQueueParams, pendingQueue } from '@/lib/proposals/queue';

export const dynamic = 'force-dynamic';

/**
 * The operator's queue: `?tenant=<id>&group=needs-you|waiting|all&action=&agent=&risk=&sort=expiring|newest|oldest&cursor=<opaque>`;
 * the tenant must be one of theirs, and the groups are as their role there sees them (lib/proposals/queue.ts).
 * Unknown parameters or values are a 400 that says which.
 */
export async function GET(request: Request) {
  try {
    const db = await getDb();
    const operator = await requireOperator(db);
    const parsed = parseQueueParams(new URL(request.url).searchParams);
    if (!parsed.ok) throw new ApiError(400, 'malformed', 'invalid_query', parsed.messages.join(' '), { messages: parsed.messages });
    const { tenant, cursor, ...view } = parsed.params;
    const membership = tenant === undefined ? operator.memberships[0] : operator.memberships.find((m) => m.tenantId === tenant);
    if (!membership) throw new ApiError(404, 'not_found', 'not_found', 'No tenant with that id.');
    return Response.json((await pendingQueue(db, membership.tenantId, { userId: operator.userId, role: membership.role }, view, cursor)) satisfies QueuePage);
  } catch (error) {
    return errorResponse(error);
  }
}
