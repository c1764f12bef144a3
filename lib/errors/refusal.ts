import { ERROR_CODES, type ErrorCategory, type ErrorKey, type ErrorKind, type WireCode, wireCode } from './codes';

export type RefusalOptions = {
  /** A refusal that may succeed later: `Retry-After` says when. */
  retryAfterSeconds?: number;
  /** Headers the answer carries besides (a bearer challenge). */
  headers?: Record<string, string>;
  /** A `rule_not_met` refusal's code: the tenant's rule's own (lower snake case, from its definition). */
  ruleCode?: string;
};

/**
 * The one error that any answer refuses with, whichever layer raises it: a key of the closed table
 * (lib/errors/codes.ts) that fixes the public code, status and kind, words for a person, and the
 * details a client needs (field issues, repair advice, versions…) beside them in the error body.
 * lib/http/errors.ts renders it; domain modules throw it and never anything of HTTP.
 */
export class Refusal extends Error {
  readonly retryAfterSeconds: number | undefined;
  readonly ruleCode: string | undefined;
  readonly #headers: Record<string, string>;

  constructor(
    readonly key: ErrorKey,
    message: string,
    readonly details: Record<string, unknown> = {},
    options: RefusalOptions = {},
  ) {
    super(message);
    this.name = 'Refusal';
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.ruleCode = key === 'rule_not_met' ? options.ruleCode : undefined;
    this.#headers = options.headers ?? {};
  }

  /** The headers its answer carries: `Retry-After` when it says when to retry, and any of its own. */
  get headers(): Record<string, string> {
    const retryAfter: Record<string, string> =
      this.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(this.retryAfterSeconds) };
    return { ...retryAfter, ...this.#headers };
  }

  /** The code the answer carries: the table's, or a tenant's rule's own for `rule_not_met`. */
  get code(): WireCode | (string & {}) {
    return this.ruleCode ?? wireCode(this.key);
  }

  get status(): number {
    return ERROR_CODES[this.key].status;
  }

  get kind(): ErrorKind {
    return ERROR_CODES[this.key].kind;
  }

  /** The family (lib/errors/codes.ts): what a refused intake counts as, and whether it may be repaired. */
  get category(): ErrorCategory {
    return ERROR_CODES[this.key].category;
  }

  /** The same refusal with more details or headers (the repair state an agent needs, a challenge). */
  with(details: Record<string, unknown>, headers: Record<string, string> = {}): Refusal {
    return new Refusal(
      this.key,
      this.message,
      { ...this.details, ...details },
      { retryAfterSeconds: this.retryAfterSeconds, headers: { ...this.#headers, ...headers }, ruleCode: this.ruleCode },
    );
  }
}

/** Missing and foreign resources get this exact refusal, so neither can be told from the other. */
export const notAuthorized = () =>
  new Refusal('not_authorized', 'A referenced resource does not exist or may not be used by this key.');

export const notFound = (what = 'proposal') => new Refusal('not_found', `No ${what} with that id.`);

/** A query string with bad parameters, each named in `messages`. */
export const invalidQuery = (messages: string[]) => new Refusal('invalid_query', messages.join(' '), { messages });

/** A refusal that a client may try again after `seconds` (said in the body and in `Retry-After`). */
export const rateLimited = (key: ErrorKey, message: string, seconds: number) =>
  new Refusal(key, message, { retryAfterSeconds: seconds }, { retryAfterSeconds: seconds });
