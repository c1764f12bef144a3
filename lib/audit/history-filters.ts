import { z } from 'zod';
import { allActions } from '@/lib/actions/registry';
import { AGENT_NAME } from '@/lib/agents/name';
import { SNAKE_CASE } from '@/lib/definitions/document';
import { parseSearch } from '@/lib/input/search';
import { isRowId } from '@/lib/paging/fields';
import { isInvisible } from '@/lib/text/visible';
import { EVENT_TYPES, HISTORY_OUTCOMES, HISTORY_TABS, type HistoryView } from './history-view';

/**
 * The history's filters as the URL and the export API carry them (docs/design.md §8): one schema for
 * the page, the export and the tests. Unknown parameters, repeated ones and bad values are refused
 * with words; the page shows them, the API answers 400 `invalid_query`. Dates are calendar days in
 * the viewer's time zone (`tz`, an IANA name) and become instants here, on the server.
 */
export const Q_MAX = 200;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

const describe = (input: unknown) => (typeof input === 'string' ? `"${input.slice(0, 40)}"` : 'nothing');
const oneOf = (name: string, values: readonly string[]) => ({
  error: (issue: { input: unknown }) => `${name} must be one of ${values.join(', ')}; got ${describe(issue.input)}.`,
});

function isCalendarDay(value: string): boolean {
  const match = DAY.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1970 && year <= 9999 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** An IANA zone name this runtime knows (`Europe/Berlin`, `UTC`); offsets and abbreviations are refused. */
export function isTimeZone(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const day = (name: string) =>
  z
    .string()
    .refine(isCalendarDay, {
      error: (issue) => `${name} must be a date like 2030-01-31; got ${describe(issue.input)}.`,
    })
    .optional();

const shippedNames = () =>
  allActions()
    .map((action) => action.name)
    .join(' or ');

const filterSchema = z.strictObject({
  tab: z.enum(HISTORY_TABS, oneOf('tab', HISTORY_TABS)).default('decisions'),
  person: z
    .string()
    .refine(isRowId, { error: (issue) => `person must be a member's id; got ${describe(issue.input)}.` })
    .optional(),
  agent: z
    .string()
    .regex(AGENT_NAME, 'agent must be an agent name: letters, digits, ".", "_" and "-", at most 64.')
    .optional(),
  action: z
    .string()
    // A shipped action or one of the tenant's own: a name no action has filters to nothing.
    .regex(SNAKE_CASE, {
      error: (issue) =>
        `action must be an action's name, lower snake case like ${shippedNames()}; got ${describe(issue.input)}.`,
    })
    .optional(),
  outcome: z.enum(HISTORY_OUTCOMES, oneOf('outcome', HISTORY_OUTCOMES)).optional(),
  type: z.enum(EVENT_TYPES as [string, ...string[]], oneOf('type', EVENT_TYPES)).optional(),
  from: day('from'),
  to: day('to'),
  tz: z
    .string()
    .refine(isTimeZone, {
      error: (issue) => `tz must be an IANA time zone name like Europe/Berlin or UTC; got ${describe(issue.input)}.`,
    })
    .optional(),
  q: z
    .string()
    .min(1, 'q must not be empty.')
    .max(Q_MAX, `q must be at most ${Q_MAX} characters.`)
    .refine(
      (value) => ![...value].some((ch) => isInvisible(ch.codePointAt(0)!)),
      'q must not contain control or invisible characters.',
    )
    .optional(),
  cursor: z.string().max(200, 'cursor is not one this history returned; start again without it.').optional(),
  format: z.enum(['csv', 'jsonl'], oneOf('format', ['csv', 'jsonl'])).optional(),
});

/** The filters as the queries take them: dates resolved to instants, `to` exclusive (the day after, at midnight). */
export type HistoryFilters = {
  person?: string;
  agent?: string;
  action?: string;
  outcome?: HistoryView['outcome'];
  type?: HistoryView['type'];
  since?: Date;
  until?: Date;
  q?: string;
};

/**
 * Which view's rows an export holds: the Decisions view's only when asked for by name (`tab=decisions`), else the
 * events.
 */
export type ExportOf = 'decisions' | 'events';

export type ParsedHistory =
  | {
      ok: true;
      view: HistoryView;
      filters: HistoryFilters;
      cursor?: string;
      format?: 'csv' | 'jsonl';
      exportOf?: ExportOf;
    }
  | { ok: false; messages: string[] };

/** How far `tz` is ahead of UTC at `instant`, in milliseconds. */
function zoneOffset(instant: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  return (
    Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) -
    Math.floor(instant / 1000) * 1000
  );
}

/** The instant a calendar day starts in `tz` (`offsetDays` later for the day after). */
export function startOfDay(date: string, tz: string, offsetDays = 0): Date {
  const [year, month, dayOfMonth] = date.split('-').map(Number) as [number, number, number];
  const local = Date.UTC(year, month - 1, dayOfMonth + offsetDays);
  // Twice: the offset at the guessed instant, not at UTC midnight, decides across a DST change.
  const guess = local - zoneOffset(local, tz);
  return new Date(local - zoneOffset(guess, tz));
}

/**
 * Validates the history's URL or the export's query. `use` says which: the Decisions view refuses
 * `type` (it filters events), only the export takes `format` (and needs it).
 */
export function parseHistoryParams(search: URLSearchParams, use: 'page' | 'export'): ParsedHistory {
  const parsed = parseSearch(filterSchema, search);
  if (!parsed.ok) return parsed;
  const messages: string[] = [];
  const { tab, cursor, format, ...rest } = parsed.data;
  if (use === 'page' && format) messages.push('format belongs to the export (/api/v1/audit/events), not the page.');
  if (use === 'export' && !format) messages.push('format must be csv or jsonl.');
  if (use === 'page' && tab === 'decisions' && rest.type)
    messages.push('type filters the Events view; the Decisions view filters by outcome.');
  if (rest.from && rest.to && rest.from > rest.to) messages.push(`from (${rest.from}) is after to (${rest.to}).`);
  if ((rest.from || rest.to) && !rest.tz)
    messages.push('tz (the time zone the dates are in, e.g. Europe/Berlin) is needed with from and to.');
  if (messages.length > 0) return { ok: false, messages };
  const view = { tab, ...rest } as HistoryView;
  const tz = rest.tz ?? 'UTC';
  const filters: HistoryFilters = {
    person: rest.person,
    agent: rest.agent,
    action: rest.action,
    outcome: rest.outcome,
    type: rest.type as HistoryView['type'],
    since: rest.from ? startOfDay(rest.from, tz) : undefined,
    until: rest.to ? startOfDay(rest.to, tz, 1) : undefined,
    q: rest.q,
  };
  const exportOf: ExportOf | undefined =
    use === 'export' ? (search.get('tab') === 'decisions' ? 'decisions' : 'events') : undefined;
  return {
    ok: true,
    view,
    filters,
    ...(cursor ? { cursor } : {}),
    ...(format ? { format } : {}),
    ...(exportOf ? { exportOf } : {}),
  };
}

/** A page's search params (Next's record) as URLSearchParams; a repeated key stays repeated, so it is refused. */
export function searchParamsOf(search: Record<string, string | string[] | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(search)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.append(key, one);
  }
  return params;
}
