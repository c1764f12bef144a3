/**
 * The values a paging parameter may carry (a cursor's timestamp, a row id, a sequence number),
 * checked before anything reaches a query: the API answers anything else with 400 invalid_query
 * and pages fall back to the first page, so crafted paging input never becomes a database error.
 */

/** The oldest and newest instant a cursor may name: well inside PostgreSQL's timestamptz and JavaScript's Date. */
const FIRST_YEAR = 1970;
const LAST_YEAR = 9999;

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z$/;

/** A UTC timestamp as the server writes them (`2030-01-01T10:00:00.123456Z`), on a real calendar day and time. */
export function isCursorInstant(value: string): boolean {
  const match = INSTANT.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < FIRST_YEAR || year > LAST_YEAR) return false;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC rolls 2030-02-30 over into March and 24:00 into the next day: a real instant survives unchanged.
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  );
}

/** A cursor's row id is any id of ours. */
export { isRowId } from '@/lib/ids';

/** An audit sequence number to page before: a positive integer JavaScript and bigint both hold exactly. */
export function parseSequence(value: string | undefined): number | undefined {
  if (value === undefined || !/^[1-9]\d{0,14}$/.test(value)) return undefined;
  return Number(value);
}
