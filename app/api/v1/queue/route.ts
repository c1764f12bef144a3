import { getDb } from '@/db';
import { ApiError, errorResponse } from '@/lib/http/errors';
import { requireOperator } from '@/lib/http/principal';
import { pendingQueue } from '@/lib/proposals/queue';

export const dynamic = 'force-dynamic';

/** The operator's queue: `?tenant=<id>&cursor=<opaque>`; the tenant must be one of theirs. */
export async function GET(request: Request) {
  try {
    const db = await getDb();
    const operator = await requireOperator(db);
    const url = new URL(request.url);
    const tenantId = url.searchParams.get('tenant') ?? operator.memberships[0]?.tenantId;
    if (!tenantId || !operator.memberships.some((m) => m.tenantId === tenantId)) {
      throw new ApiError(404, 'not_found', 'not_found', 'No tenant with that id.');
    }
    return Response.json(await pendingQueue(db, tenantId, url.searchParams.get('cursor')));
  } catch (error) {
    return errorResponse(error);
  }
}
