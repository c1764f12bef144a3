import { type Column, sql } from 'drizzle-orm';

/**
 * A timestamp column as cursor text with all six fractional digits. The database keeps
 * microseconds; a cursor cut to JavaScript's milliseconds would skip the rows between the two.
 */
export function cursorInstant(column: Column) {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}
