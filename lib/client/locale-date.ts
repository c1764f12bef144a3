/**
 * Calendar days typed and shown in the viewer's locale (31/01/2030 in en-GB, 01/31/2030 in en-US,
 * 31.01.2030 in de), beside times formatted in that same locale; URLs and the API keep ISO
 * 2030-01-31. Pure: the locale is passed in.
 */

type Field = 'day' | 'month' | 'year';
export type DayFormat = { order: Field[]; separator: string; pattern: string };

const WORD: Record<Field, string> = { day: 'dd', month: 'mm', year: 'yyyy' };

/** How `locale` writes a numeric date: its field order, separator and a pattern to show ("dd/mm/yyyy"). */
export function dayFormat(locale: string | undefined): DayFormat {
  const parts = new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    timeZone: 'UTC',
  }).formatToParts(Date.UTC(2030, 0, 31));
  const order = parts
    .filter((part): part is Intl.DateTimeFormatPart & { type: Field } => ['day', 'month', 'year'].includes(part.type))
    .map((part) => part.type);
  const separator = parts.find((part) => part.type === 'literal')?.value.trim() || '/';
  // A locale whose numeric date is not three fields (none known) falls back to ISO.
  if (order.length !== 3) return { order: ['year', 'month', 'day'], separator: '-', pattern: 'yyyy-mm-dd' };
  return { order, separator, pattern: order.map((field) => WORD[field]).join(separator) };
}

/** An ISO day (2030-01-31) as `format` writes it; anything else is returned as it is. */
export function formatDay(iso: string, format: DayFormat): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!match) return iso;
  const fields: Record<Field, string> = { year: match[1]!, month: match[2]!, day: match[3]! };
  return format.order.map((field) => fields[field]).join(format.separator);
}

export type ParsedDay = { ok: true; iso: string } | { ok: false; message: string };

/**
 * A typed day, in `format` (any of / . - or space between the fields, one- or two-digit day and
 * month) or as ISO 2030-01-31, to ISO; a day that does not exist (31/02/2030) is refused, naming the
 * format expected.
 */
export function parseDay(text: string, format: DayFormat, label: string): ParsedDay {
  const value = text.trim();
  const unparsed = (): ParsedDay => ({
    ok: false,
    message: `${label} must be a date written ${format.pattern} (or 2030-01-31); got "${value}".`,
  });
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(value);
  const numbers = iso ? [iso[1]!, iso[2]!, iso[3]!] : value.split(/[\s./-]+/);
  const order: Field[] = iso ? ['year', 'month', 'day'] : format.order;
  if (numbers.length !== 3 || numbers.some((n) => !/^\d+$/.test(n))) return unparsed();
  const fields = Object.fromEntries(order.map((field, index) => [field, Number(numbers[index])])) as Record<
    Field,
    number
  >;
  if (String(fields.year).length !== 4) return unparsed();
  const date = new Date(Date.UTC(fields.year, fields.month - 1, fields.day));
  if (
    date.getUTCFullYear() !== fields.year ||
    date.getUTCMonth() !== fields.month - 1 ||
    date.getUTCDate() !== fields.day
  )
    return unparsed();
  return { ok: true, iso: date.toISOString().slice(0, 10) };
}
