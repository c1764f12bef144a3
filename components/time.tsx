const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

export function relativeTime(date: Date, now = new Date()): string {
  const diff = date.getTime() - now.getTime();
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, size] of UNITS) {
    if (Math.abs(diff) >= size) return format.format(Math.round(diff / size), unit);
  }
  return diff < 0 ? 'just now' : 'in under a minute';
}

/** "23 h 12 m" style durations. */
export function humanDuration(ms: number): string {
  if (ms <= 0) return '0 m';
  const minutes = Math.floor(ms / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${rest} m`;
  return `${rest} m`;
}

export function absoluteTime(date: Date): string {
  return `${date.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

/** Relative time, with the absolute time and zone on hover. */
export function Time({ value, now }: { value: Date | string; now?: Date }) {
  const date = typeof value === 'string' ? new Date(value) : value;
  return (
    <time dateTime={date.toISOString()} title={absoluteTime(date)} suppressHydrationWarning>
      {relativeTime(date, now)}
    </time>
  );
}

/**
 * A date and time in the viewer's own time zone, with the zone named ("30 Nov 2026, 14:05:09 CET"). Client-rendered
 * only.
 */
export function LocalTime({ value, testId }: { value: string; testId?: string }) {
  const date = new Date(value);
  const text = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(date);
  const zone =
    new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
      .formatToParts(date)
      .find((part) => part.type === 'timeZoneName')?.value ?? '';
  return (
    // Date-and-time and zone each stay whole; a narrow column (a phone's key card) may break between them.
    <time dateTime={date.toISOString()} title={absoluteTime(date)} data-testid={testId}>
      <span className="whitespace-nowrap">{text}</span> <span className="whitespace-nowrap">{zone}</span>
    </time>
  );
}
