import 'server-only';
import type { Database } from '@/db';
import type { Operator } from '@/lib/auth/operator';
import type { Viewer } from '@/lib/auth/viewer';
import { getDb } from '@/lib/database';
import type { RequestBody } from '@/lib/input/request-body';
import { readJsonRequest } from './body';
import { errorResponse } from './errors';
import { assertSameOrigin } from './origin';
import {
  type Admin,
  type Member,
  type Principal,
  requireAdmin,
  requireMember,
  requireOperator,
  requirePrincipal,
  requireViewerWithoutKey,
} from './principal';

/*
 * Every API route handler is made here: who may call it (an agent key, a session, a member of the
 * tenant in view, an admin, anyone), how a mutation reads its body, and that anything thrown is
 * answered as the API's JSON (lib/http/errors.ts). A route file says which, and does its work.
 */

type RouteContext<P> = { params: Promise<P> };
/** Next always passes the context; a route without parameters may be called without it (tests). */
const NO_PARAMS: RouteContext<never> = { params: Promise.resolve({} as never) };
type NoParams = Record<string, never>;

/** A route handler whose thrown errors (domain errors, Refusal or anything) are answered as the API's JSON. */
export function apiRoute<P = NoParams>(work: (request: Request, params: P) => Promise<Response>) {
  return async (request: Request, { params }: RouteContext<P> = NO_PARAMS): Promise<Response> => {
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

type Input<P> = { db: Database; request: Request; params: P };

/**
 * A read open to agents (their key) and people (a session): an Authorization header means an agent, and only an agent.
 */
export function principalRead<P = NoParams>(
  handler: (input: Input<P> & { principal: Principal }) => Promise<Response>,
) {
  return apiRoute<P>(async (request, params) => {
    const db = await getDb();
    return handler({ db, request, params, principal: await requirePrincipal(db, request) });
  });
}

/** A read for people only: a session, and never an agent key (401 even beside a session). */
export function viewerRead<P = NoParams>(handler: (input: Input<P> & { viewer: Viewer }) => Promise<Response>) {
  return apiRoute<P>(async (request, params) => {
    const viewer = await requireViewerWithoutKey(request);
    return handler({ db: await getDb(), request, params, viewer });
  });
}

/**
 * A tenant-wide read: `viewerRead` and a membership in the tenant the viewer is looking at (403 `forbidden` without).
 */
export function memberRead<P = NoParams>(handler: (input: Input<P> & { member: Member }) => Promise<Response>) {
  return apiRoute<P>(async (request, params) => {
    const member = await requireMember(request);
    return handler({ db: await getDb(), request, params, member });
  });
}

/**
 * A member's mutation in the tenant they are looking at (recording that they opened a proposal):
 * `memberRead`'s checks plus a same-origin `Origin` and the body read like every mutation's. The
 * tenant is the session's, never the body's.
 */
export function memberMutation<T, P = NoParams>(
  body: RequestBody<T>,
  handler: (input: Input<P> & { member: Member; body: T }) => Promise<Response>,
) {
  return memberRead<P>(async (input) => handler({ ...input, body: await mutationBody(input.request, body) }));
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
  return apiRoute<{ id: string }>(async (request, { id }) => {
    const operator = await requireOperator();
    return handler({ id, db: await getDb(), operator, request, body: await mutationBody(request, body) });
  });
}

export type AdminInput<P> = Input<P> & { admin: Admin };

/**
 * An admin API route (`/api/v1/admin/…`): a session, never an agent key (401 without); the admin
 * role in the tenant the viewer is looking at, re-read on this request (403 `forbidden` otherwise);
 * errors as the API's JSON. The tenant the handler acts in is `admin.tenantId`, never the body's.
 */
export function adminRoute<P = NoParams>(handler: (input: AdminInput<P>) => Promise<Response>) {
  return apiRoute<P>(async (request, params) => {
    const admin = await requireAdmin();
    return handler({ db: await getDb(), admin, request, params });
  });
}

/** An admin mutation: `adminRoute` plus a same-origin `Origin` and the body read like every operator mutation's. */
export function adminMutation<T, P = NoParams>(
  body: RequestBody<T>,
  handler: (input: AdminInput<P> & { body: T }) => Promise<Response>,
) {
  return adminRoute<P>(async (input) => handler({ ...input, body: await mutationBody(input.request, body) }));
}

/**
 * A mutation of the signed-in person's own account (no tenant, no proposal): a session, a same-origin `Origin`, the
 * body read like every mutation's.
 */
export function accountMutation<T, P = NoParams>(
  body: RequestBody<T>,
  handler: (input: Input<P> & { operator: Operator; body: T }) => Promise<Response>,
) {
  return apiRoute<P>(async (request, params) => {
    const operator = await requireOperator();
    return handler({ db: await getDb(), request, params, operator, body: await mutationBody(request, body) });
  });
}
