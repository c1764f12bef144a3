import type { ErrorBody, ErrorKind } from '@/lib/api/responses/error';

/** Every error a client can see: a kind (the family), a specific code and words for a person. */
export type { ErrorKind };

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

  /** The same error with more fields in its body (e.g. the repair state an agent needs). */
  with(extra: Record<string, unknown>): ApiError {
    return new ApiError(this.status, this.kind, this.code, this.message, { ...this.extra, ...extra }, this.headers);
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

/** Missing and foreign resources get this exact answer, so neither can be told from the other. */
export const notAuthorized = () =>
  new ApiError(403, 'authorization', 'not_authorized', 'A referenced resource does not exist or may not be used by this key.');

/** A system of record could not give a trustworthy answer: fail closed, nothing changed. */
export const systemsUnavailable = () =>
  new ApiError(503, 'unavailable', 'systems_unavailable', 'The system of record could not be reached; nothing was changed. Retry later.', {}, { 'Retry-After': '5' });

export const notFound = (what = 'proposal') => new ApiError(404, 'not_found', 'not_found', `No ${what} with that id.`);

/** Turns anything thrown in a route into a response; unknown errors never leak their text. */
export function errorResponse(error: unknown): Response {
  if (error instanceof ApiError) return error.toResponse();
  if (error instanceof Error && error.name === 'SystemsUnavailableError') return systemsUnavailable().toResponse();
  console.error('[countersign] unhandled route error', error instanceof Error ? error.name : typeof error);
  if (error instanceof Error && error.stack) console.error(error.stack.split('\n').slice(0, 6).join('\n'));
  return new ApiError(500, 'internal', 'internal_error', 'Something went wrong on the server; nothing was changed.').toResponse();
}
