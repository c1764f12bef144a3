import 'server-only';
import type { Database } from '@/db';
import { getDb } from '@/db';
import type { RequestBody } from '@/lib/api/requests';
import type { Operator } from '@/lib/auth/operator';
import { readJsonRequest } from './body';
import { errorResponse } from './errors';
import { assertSameOrigin } from './origin';
import { requireOperator } from './principal';

type RouteContext = { params: Promise<{ id: string }> };

/**
 * A dashboard mutation on one proposal (`POST /api/v1/proposals/:id/<verb>`): a session, never
 * an agent key; a same-origin `Origin`; the body read by the one JSON reader and parsed with
 * `body` (lib/api/requests.ts), so every mutation refuses a bad body the same way (400/413/415
 * malformed, 422 with issues); errors as the API's JSON. The handler does the rest.
 */
export function operatorMutation<T>(
  body: RequestBody<T>,
  handler: (input: { id: string; db: Database; operator: Operator; request: Request; body: T }) => Promise<Response>,
) {
  return async (request: Request, { params }: RouteContext): Promise<Response> => {
    try {
      const { id } = await params;
      const db = await getDb();
      const operator = await requireOperator(db);
      assertSameOrigin(request);
      const parsed = await readJsonRequest(request, body);
      return await handler({ id, db, operator, request, body: parsed });
    } catch (error) {
      return errorResponse(error);
    }
  };
}
