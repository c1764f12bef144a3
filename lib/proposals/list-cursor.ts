import { isCursorInstant, isRowId } from '@/lib/paging/fields';

/** How a list of proposals is ordered; each has a matching index (tenant, status, column, id). */
export const PROPOSAL_SORTS = ['expiring', 'newest', 'oldest'] as const;
export type ProposalSort = (typeof PROPOSAL_SORTS)[number];

/** Where the previous page ended: its sort, the last row's sort value (microseconds, UTC) and id. */
export type ListCursor = { sort: ProposalSort; at: string; id: string };

const CURSOR_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.sort, cursor.at, cursor.id])).toString('base64url');
}

/** The cursor, or undefined when it is not one encodeCursor made. */
export function decodeCursor(raw: string | null | undefined): ListCursor | undefined {
  if (!raw) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 3) return undefined;
    const [sort, at, id] = value as unknown[];
    if (
      !PROPOSAL_SORTS.includes(sort as ProposalSort) ||
      typeof at !== 'string' ||
      !CURSOR_AT.test(at) ||
      !isCursorInstant(at) ||
      typeof id !== 'string' ||
      !isRowId(id)
    ) {
      return undefined;
    }
    return { sort: sort as ProposalSort, at, id };
  } catch {
    return undefined;
  }
}
