import type { ErrorBody } from '@/lib/api/responses/error';
import { Refusal } from '@/lib/errors/refusal';

export const unauthenticated = (message = 'Sign in, or send a valid agent key as "Authorization: Bearer <key>".') =>
  new Refusal('unauthenticated', message);

/**
 * Anything thrown, as the refusal the API answers with: a Refusal as it is; anything else a 500
 * whose text never leaks (logged by its name only, the stack's top lines for whoever runs the server).
 */
export function refusalOf(error: unknown): Refusal {
  if (error instanceof Refusal) return error;
  console.error('[countersign] unhandled route error', error instanceof Error ? error.name : typeof error);
  if (error instanceof Error && error.stack) console.error(error.stack.split('\n').slice(0, 6).join('\n'));
  return new Refusal('internal_error', 'Something went wrong on the server; nothing was changed.');
}

/** The one error body, as every route, the MCP endpoint and the executor answer it. */
export function errorBody(refusal: Refusal): ErrorBody {
  const rule = refusal.ruleCode === undefined ? {} : { rule: refusal.ruleCode };
  return { error: { kind: refusal.kind, code: refusal.code, message: refusal.message, ...rule, ...refusal.details } };
}

/**
 * THE one translation of anything thrown into the HTTP answer: the refusal's status, its error body
 * and its headers (`Retry-After` when it says when to retry).
 */
export function errorResponse(error: unknown): Response {
  const refusal = refusalOf(error);
  return Response.json(errorBody(refusal), { status: refusal.status, headers: refusal.headers });
}

/** A body over `maxBytes`, refused unread past the cap. */
export const bodyTooLarge = (maxBytes: number) =>
  new Refusal('too_large', `The body is larger than ${maxBytes} bytes.`);
