import { isCursorInstant, isRowId } from './fields';

/**
 * Where a page ordered by (a timestamp, id) ended: the last row's time (microseconds, UTC, lib/paging/sql.ts) and id.
 */
export type InstantCursor = { at: string; id: string };

export function encodeInstantCursor(cursor: InstantCursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');
}

/** The cursor, or undefined when it is not one `encodeInstantCursor` wrote (so crafted input never reaches a query). */
export function decodeInstantCursor(raw: string | undefined): InstantCursor | undefined {
  if (!raw) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [at, id] = value as unknown[];
    return typeof at === 'string' && isCursorInstant(at) && typeof id === 'string' && isRowId(id)
      ? { at, id }
      : undefined;
  } catch {
    return undefined;
  }
}
