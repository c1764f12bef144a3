/** The family of every error a client can see (the `kind` of the one error body, docs/api.md). */
export const ERROR_KINDS = [
  'malformed',
  'schema',
  'business_rule',
  'authorization',
  'authentication',
  'idempotency',
  'rate_limit',
  'decision',
  'not_found',
  'forbidden',
  'unavailable',
  'internal',
  /** The executor's refusal of a signed command (lib/commands/verify.ts `CommandRefusal`). */
  'command',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * What went wrong, in the domain's words; each category is answered with one status and one public
 * kind. The status is stored with a rejected intake attempt and the kind is named in an MCP
 * refusal, so this table is data beside the error rather than inside lib/http, which renders it
 * (lib/http/errors.ts, the one place that turns a thrown error into an answer).
 */
export const ERROR_CATEGORIES = {
  /** A request that cannot be read at all (a bad query string). */
  malformed: { status: 400, kind: 'malformed' },
  /** Nobody we know is asking. */
  unauthenticated: { status: 401, kind: 'authentication' },
  /** A key may not use a resource or an action (missing and foreign alike). */
  not_permitted: { status: 403, kind: 'authorization' },
  /** A person's role or address does not allow this. */
  forbidden: { status: 403, kind: 'forbidden' },
  /** An approver may not decide this proposal. */
  decision_forbidden: { status: 403, kind: 'decision' },
  not_found: { status: 404, kind: 'not_found' },
  /** The state of things refuses the change (the last admin, an already revoked key). */
  conflict: { status: 409, kind: 'business_rule' },
  /** The proposal's state refuses the decision (already decided, expired, stale). */
  decision_conflict: { status: 409, kind: 'decision' },
  /** A request id reused for another payload. */
  idempotency_conflict: { status: 409, kind: 'idempotency' },
  /** Something that was once valid is used up or expired (an invitation, an emailed code). */
  gone: { status: 410, kind: 'business_rule' },
  /** The input does not have the shape asked for. */
  invalid: { status: 422, kind: 'schema' },
  /** The input has the right shape but a rule of the domain refuses it. */
  refused: { status: 422, kind: 'business_rule' },
  rate_limited: { status: 429, kind: 'rate_limit' },
  /** A service we rely on failed to do its part (the mail server). */
  upstream_failed: { status: 502, kind: 'unavailable' },
  /** A service we rely on could not be reached or is not configured; nothing was changed. */
  unavailable: { status: 503, kind: 'unavailable' },
} as const satisfies Record<string, { status: number; kind: ErrorKind }>;

export type ErrorCategory = keyof typeof ERROR_CATEGORIES;

/**
 * An error of the domain: its category, a stable `code` for programs (public: never renamed), words
 * for a person, the details a client needs (field issues, repair advice, versions…) and, for a
 * refusal that may succeed later, how long to wait (`extra` goes into the error body beside
 * `code` and `message`). Domain modules throw these and never an HTTP type.
 */
export class DomainError extends Error {
  constructor(
    readonly category: ErrorCategory,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get kind(): ErrorKind {
    return ERROR_CATEGORIES[this.category].kind;
  }

  get status(): number {
    return ERROR_CATEGORIES[this.category].status;
  }

  /** The same error with more details (e.g. the repair state an agent needs). */
  with(extra: Record<string, unknown>): DomainError {
    return new DomainError(this.category, this.code, this.message, { ...this.extra, ...extra }, this.retryAfterSeconds);
  }
}

/** What a refusal says to whoever asked, whichever layer raised it (kept with a rejected intake attempt). */
export type Refusal = Pick<DomainError, 'status' | 'kind' | 'code' | 'message' | 'extra'>;

/** Missing and foreign resources get this exact error, so neither can be told from the other. */
export const notAuthorized = () =>
  new DomainError(
    'not_permitted',
    'not_authorized',
    'A referenced resource does not exist or may not be used by this key.',
  );

export const notFound = (what = 'proposal') => new DomainError('not_found', 'not_found', `No ${what} with that id.`);

/** A refusal that a client may try again after `seconds` (said in the body and in `Retry-After`). */
export const rateLimited = (code: string, message: string, seconds: number) =>
  new DomainError('rate_limited', code, message, { retryAfterSeconds: seconds }, seconds);

/** A query string with bad parameters, each named in `messages`. */
export const invalidQuery = (messages: string[]) =>
  new DomainError('malformed', 'invalid_query', messages.join(' '), { messages });
