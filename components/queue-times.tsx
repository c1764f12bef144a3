'use client';

import { useSyncExternalStore } from 'react';
import { URGENCY_WORDS, type Urgency, urgencyOf } from '@/lib/proposals/words';
import { absoluteTime, humanDuration, relativeTime } from './time';

const subscribe = () => () => {};

/** False while rendering on the server (which does not know the viewer's zone), true in the browser. */
function useInBrowser(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

function viewerZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** A date and time in the viewer's zone, without the zone's name: the page names it once. */
function clockText(date: Date): string {
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/** "Times in Europe/Berlin": said once on the queue, not in every cell. */
export function ZoneNote() {
  const inBrowser = useInBrowser();
  return <span data-testid="queue-zone">Times in {inBrowser ? viewerZone() : 'UTC'}</span>;
}

/** An absolute time in the viewer's zone (UTC until the browser runs); UTC on hover. */
export function ClockTime({ value, testId }: { value: string; testId?: string }) {
  const inBrowser = useInBrowser();
  const date = new Date(value);
  return (
    <time dateTime={date.toISOString()} title={absoluteTime(date)} data-testid={testId} className="whitespace-nowrap">
      {inBrowser ? clockText(date) : absoluteTime(date)}
    </time>
  );
}

const URGENCY_LOOK: Record<Urgency, string> = {
  calm: '',
  warning: 'font-medium text-amber-800 dark:text-amber-300',
  danger: 'font-semibold text-red-700 dark:text-red-300',
};

/**
 * Relative to `now` ("3 hours ago", "23 h 12 m left"); on hover the absolute time in the viewer's
 * zone and in UTC. Time left under 1 h reads as a warning ("59 m left · soon"), under 10 min as
 * danger ("9 m left · expiring"): in colour and in words.
 */
export function RelativeTime({
  value,
  now,
  kind,
  label,
  testId,
}: {
  value: string;
  now: Date;
  kind: 'age' | 'left';
  label?: string;
  testId?: string;
}) {
  const inBrowser = useInBrowser();
  const date = new Date(value);
  const msLeft = date.getTime() - now.getTime();
  const urgency = kind === 'left' ? urgencyOf(msLeft) : 'calm';
  const text =
    kind === 'left'
      ? `${humanDuration(msLeft)} left${URGENCY_WORDS[urgency] ? ` · ${URGENCY_WORDS[urgency]}` : ''}`
      : relativeTime(date, now);
  const title = `${label ? `${label} ` : ''}${inBrowser ? `${clockText(date)} · ` : ''}${absoluteTime(date)}`;
  return (
    <time
      dateTime={date.toISOString()}
      title={title}
      data-testid={testId}
      data-urgency={kind === 'left' ? urgency : undefined}
      className={`whitespace-nowrap ${URGENCY_LOOK[urgency]}`}
      suppressHydrationWarning
    >
      {text}
    </time>
  );
}
