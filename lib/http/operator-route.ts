import type { Database } from '@/db';
import { getDb } from '@/db';
import type { Operator } from '@/lib/auth/operator';
import { errorResponse } from './errors';
import { assertSameOrigin } from './origin';
import { requireOperator } from './principal';

type RouteContext = { params: Promise<{ id: string }> };

/**
 * A dashboard mutation on one proposal (`POST /api/v1/proposals/:id/<verb>`): a session, never
 * an agent key; a same-origin `Origin`; errors as the API's JSON. The handler does the rest.
 */
export function operatorMutation(handler: (input: { id: string; db: Database; operator: Operator; request: Request }) => Promise<Response>) {
  return async (request: Request, { params }: RouteContext): Promise<Response> => {
    try {
      const { id } = await params;
      const db = await getDb();
      const operator = await requireOperator(db);
      assertSameOrigin(request);
      return await handler({ id, db, operator, request });
    } catch (error) {
      return errorResponse(error);
    }
  };
}
