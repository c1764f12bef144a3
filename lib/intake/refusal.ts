import type { ErrorKey } from '@/lib/errors/codes';
import { Refusal } from '@/lib/errors/refusal';
import type { Verdict } from '@/lib/gates/types';

/**
 * A refused verdict in intake's (or an operator's revision's) words. The Refusal is data that a
 * step stops with; it is thrown only where the answer is given, at the end of the run.
 */
export const refused = (
  key: ErrorKey,
  message: string,
  details: Record<string, unknown> = {},
): Verdict<never, Refusal> => ({ ok: false, refusal: new Refusal(key, message, details) });
