import { DomainError, type ErrorCategory } from '@/lib/errors/domain-error';
import type { Verdict } from '@/lib/gates/types';

/**
 * Why intake (or an operator's revision) refused a candidate, as data that steps stop with: the
 * category (its status and kind), the stable code, words for a person and the details the answer
 * carries (field issues, versions). It becomes the thrown error only where the answer is given.
 */
export type IntakeRefusal = {
  category: ErrorCategory;
  code: string;
  message: string;
  details: Record<string, unknown>;
};

export const refusal = (
  category: ErrorCategory,
  code: string,
  message: string,
  details: Record<string, unknown> = {},
): IntakeRefusal => ({ category, code, message, details });

/** A gate's refused verdict, in intake's words. */
export const refused = (
  category: ErrorCategory,
  code: string,
  message: string,
  details: Record<string, unknown> = {},
): Verdict<never, IntakeRefusal> => ({ ok: false, refusal: refusal(category, code, message, details) });

/** The same words as a refusal another module throws (e.g. `notAuthorized()`), as data. */
export const refusalOf = (error: DomainError): IntakeRefusal =>
  refusal(error.category, error.code, error.message, error.extra);

/** The refusal as the error that answers it. */
export const answerOf = ({ category, code, message, details }: IntakeRefusal): DomainError =>
  new DomainError(category, code, message, details);
