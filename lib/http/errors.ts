import type { ErrorBody } from '@/lib/api/responses/error';
import { DomainError, type ErrorKind } from '@/lib/errors/domain-error';

/** Every error a client can see: a kind (the family), a specific code and words for a person. */
export type { ErrorKind };

/**
 * An error of the HTTP layer itself (an unreadable body, a foreign origin, no session) and the form
 * every error takes on its way out: status, headers and the one error body.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ErrorBody {
    return { error: { kind: this.kind, code: this.code, message: this.message, ...this.extra } };
  }

  toResponse(): Response {
    return Response.json(this.toBody(), { status: this.status, headers: this.headers });
  }
}

export const unauthenticated = (message = 'Sign in, or send a valid agent key as "Authorization: Bearer <key>".') =>
  new ApiError(401, 'authentication', 'unauthenticated', message);

const internalError = () =>
  new ApiError(500, 'internal', 'internal_error', 'Something went wrong on the server; nothing was changed.');

/**
 * The one translation of a thrown error into the API's answer: an ApiError as it is; a domain error
 * (lib/errors, the system of record's `systems_unavailable` among them) by its category's status
 * and kind, with `Retry-After` when it says when to retry; anything else a 500 whose text never leaks.
 */
export function apiErrorOf(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) {
    const headers: Record<string, string> =
      error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) };
    return new ApiError(error.status, error.kind, error.code, error.message, error.extra, headers);
  }
  console.error('[countersign] unhandled route error', error instanceof Error ? error.name : typeof error);
  if (error instanceof Error && error.stack) console.error(error.stack.split('\n').slice(0, 6).join('\n'));
  return internalError();
}

/** Turns anything thrown in a route into a response. */
export function errorResponse(error: unknown): Response {
  return apiErrorOf(error).toResponse();
}

/** A body over `maxBytes`, refused unread past the cap. */
export const bodyTooLarge = (maxBytes: number) =>
  new ApiError(413, 'malformed', 'too_large', `The body is larger than ${maxBytes} bytes.`);
