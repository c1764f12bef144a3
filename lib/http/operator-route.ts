import 'server-only';
import type { Database } from '@/db';
import { getDb } from '@/lib/database';
import type { RequestBody } from '@/lib/input/request-body';
import type { Operator } from '@/lib/auth/operator';
import { readJsonRequest } from './body';
import { errorResponse } from './errors';
import { assertSameOrigin } from './origin';
import { requireAdmin, requireOperator, type Admin } from './principal';

type RouteContext<P> = { params: Promise<P> };

/** A route handler whose thrown errors (ApiError or not) are answered as the API's JSON. */
function answering<P>(work: (request: Request, params: P) => Promise<Response>) {
  return async (request: Request, { params }: RouteContext<P>): Promise<Response> => {
    try {
      return await work(request, await params);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** The one way a mutation reads its body: a same-origin `Origin` first, then the JSON reader and `body`'s schema. */
async function mutationBody<T>(request: Request, body: RequestBody<T>): Promise<T> {
  assertSameOrigin(request);
  return readJsonRequest(request, body);
}

/**
 * A dashboard mutation on one proposal (`POST /api/v1/proposals/:id/<verb>`): a session, never
 * an agent key; a same-origin `Origin`; the body read by the one JSON reader and parsed with
 * `body` (lib/input/request-body.ts), so every mutation refuses a bad body the same way (400/413/415
 * malformed, 422 with issues); errors as the API's JSON. The handler does the rest.
 */
export function operatorMutation<T>(
  body: RequestBody<T>,
  handler: (input: { id: string; db: Database; operator: Operator; request: Request; body: T }) => Promise<Response>,
) {
  return answering<{ id: string }>(async (request, { id }) => {
    const db = await getDb();
    const operator = await requireOperator(db);
    return handler({ id, db, operator, request, body: await mutationBody(request, body) });
  });
}

export type AdminInput<P> = { db: Database; admin: Admin; request: Request; params: P };

/**
 * An admin API route (`/api/v1/admin/…`): a session, never an agent key (401 without); the admin
 * role in the tenant the dashboard shows, re-read on this request (403 `forbidden` otherwise);
 * errors as the API's JSON. The tenant the handler acts in is `admin.tenantId`, never the body's.
 */
export function adminRoute<P = Record<string, never>>(handler: (input: AdminInput<P>) => Promise<Response>) {
  return answering<P>(async (request, params) => {
    const db = await getDb();
    const admin = await requireAdmin(db);
    return handler({ db, admin, request, params });
  });
}

/** An admin mutation: `adminRoute` plus a same-origin `Origin` and the body read like every operator mutation's. */
export function adminMutation<T, P = Record<string, never>>(body: RequestBody<T>, handler: (input: AdminInput<P> & { body: T }) => Promise<Response>) {
  return adminRoute<P>(async (input) => handler({ ...input, body: await mutationBody(input.request, body) }));
}

/** A mutation of the signed-in person's own account (no tenant, no proposal): a session, a same-origin `Origin`, the body read like every mutation's. */
export function accountMutation<T>(body: RequestBody<T>, handler: (input: { db: Database; operator: Operator; body: T }) => Promise<Response>) {
  return answering<Record<string, never>>(async (request) => {
    const db = await getDb();
    const operator = await requireOperator(db);
    return handler({ db, operator, body: await mutationBody(request, body) });
  });
}
