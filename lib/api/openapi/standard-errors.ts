import type { WireCode } from '@/lib/errors/codes';
import type { ErrorCase, Operation } from './operation';

/** The codes of lib/http/body.ts's reader, checked before any schema. */
export const MALFORMED_BODY_CODES = [
  'invalid_json',
  'invalid_utf8',
  'duplicate_key',
  'forbidden_key',
  'too_deep',
  'lone_surrogate',
  'nul_character',
] as const satisfies readonly WireCode[];

/** The errors an operation answers because of who may call it and whether it reads a body. */
function standardErrors(operation: Operation): ErrorCase[] {
  const errors: ErrorCase[] = [];
  // A signed command is checked by the executor itself: its 401s are the operation's own.
  if (operation.access !== 'public' && operation.access !== 'command')
    errors.push({ status: 401, codes: ['unauthenticated'] });
  if (operation.access === 'admin') errors.push({ status: 403, codes: ['forbidden'] });
  const body = operation.body;
  if (body) {
    if (body.sameOrigin) errors.push({ status: 403, codes: ['cross_origin'] });
    errors.push(
      { status: 400, codes: MALFORMED_BODY_CODES },
      { status: 413, codes: ['too_large'] },
      { status: 415, codes: ['unsupported_media_type'] },
      { status: 422, codes: [body.invalidCode] },
    );
  }
  return errors;
}

/** Every error status of an operation with all of its codes, the standard ones and its own, by status. */
export function errorsOf(operation: Operation): ErrorCase[] {
  const byStatus = new Map<number, ErrorCase>();
  for (const error of [...standardErrors(operation), ...(operation.errors ?? [])]) {
    const known = byStatus.get(error.status);
    byStatus.set(error.status, {
      status: error.status,
      codes: [...new Set([...(known?.codes ?? []), ...error.codes])],
      headers: [...new Set([...(known?.headers ?? []), ...(error.headers ?? [])])],
      body: known?.body ?? error.body,
    });
  }
  return [...byStatus.values()].sort((a, b) => a.status - b.status);
}
