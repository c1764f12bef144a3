'use client';

import { useSyncExternalStore } from 'react';
import { absoluteTime, LocalTime } from './time';

const subscribe = () => () => {};

/**
 * A date and time in the viewer's own zone, named ("30 Nov 2026, 14:05:09 CET"). The server does
 * not know the zone: it renders UTC, and the browser replaces it once it runs.
 */
export function ViewerTime({ value, testId }: { value: string; testId?: string }) {
  const inBrowser = useSyncExternalStore(subscribe, () => true, () => false);
  if (inBrowser) return <LocalTime value={value} testId={testId} />;
  return (
    <time dateTime={value} data-testid={testId} className="whitespace-nowrap">
      {absoluteTime(new Date(value))}
    </time>
  );
}
