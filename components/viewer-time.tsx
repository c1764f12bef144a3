'use client';

import { useSyncExternalStore } from 'react';
import { absoluteTime, LocalTime } from './time';

const subscribe = () => () => {};

/** False while the server renders (and while the page hydrates), true in the browser after that. */
function useInBrowser(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

/**
 * A date and time in the viewer's own zone, named ("30 Nov 2026, 14:05:09 CET"). The server does
 * not know the zone: it renders UTC, and the browser replaces it once it runs.
 */
export function ViewerTime({ value, testId }: { value: string; testId?: string }) {
  const inBrowser = useInBrowser();
  if (inBrowser) return <LocalTime value={value} testId={testId} />;
  return (
    <time dateTime={value} data-testid={testId} className="whitespace-nowrap">
      {absoluteTime(new Date(value))}
    </time>
  );
}

const sameDay = (a: Date, b: Date, timeZone?: string) => {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return day.format(a) === day.format(b);
};

/**
 * "11:04" today, "28 Nov, 11:04" another day. In the viewer's zone and words by default; the
 * server (which knows neither) renders UTC in fixed words, so hydration matches.
 */
export function clockText(
  date: Date,
  { seconds = false, utc = false }: { seconds?: boolean; utc?: boolean } = {},
): string {
  const timeZone = utc ? 'UTC' : undefined;
  const locale = utc ? 'en-GB' : undefined;
  const time: Intl.DateTimeFormatOptions = {
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
    timeZone,
  };
  if (sameDay(date, new Date(), timeZone)) return new Intl.DateTimeFormat(locale, time).format(date);
  return new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', ...time }).format(date);
}

/**
 * A time of day in the viewer's zone without naming the zone (the page names it once, with
 * ViewerZone), the UTC time on hover. The server renders it in UTC; the browser swaps it.
 */
export function ViewerClock({ value, seconds, testId }: { value: string; seconds?: boolean; testId?: string }) {
  const inBrowser = useInBrowser();
  const date = new Date(value);
  return (
    <time dateTime={value} title={absoluteTime(date)} data-testid={testId} className="whitespace-nowrap tabular-nums">
      {clockText(date, { seconds, utc: !inBrowser })}
    </time>
  );
}

/** The zone the page's times are in, named once ("Times are in your time zone, CET; hover one for UTC."). */
export function ViewerZone() {
  const inBrowser = useInBrowser();
  const zone = inBrowser
    ? new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
        .formatToParts(new Date())
        .find((part) => part.type === 'timeZoneName')?.value
    : undefined;
  const name = inBrowser ? Intl.DateTimeFormat().resolvedOptions().timeZone : undefined;
  const utc = !zone || ['UTC', 'Etc/UTC', 'GMT'].includes(name ?? 'UTC');
  return (
    <p data-testid="viewer-zone" className="text-xs text-zinc-600 dark:text-zinc-400">
      {utc ? (
        'Times are in UTC.'
      ) : (
        <>
          Times are in your time zone, {zone}
          {name && name !== zone ? ` (${name})` : ''}; hover one for UTC.
        </>
      )}
    </p>
  );
}
