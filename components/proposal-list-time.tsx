'use client';

import { useSyncExternalStore } from 'react';
import { absoluteTime, relativeTime } from './time';

const subscribe = () => () => {};

/**
 * "3 hours ago", with the absolute time in the viewer's own zone on hover (`timeStyle: 'long'` names the zone; UTC
 * until the browser runs).
 */
export function ProposalListTime({ value }: { value: string }) {
  const date = new Date(value);
  const inBrowser = useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
  const title = inBrowser
    ? new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' }).format(date)
    : absoluteTime(date);
  return (
    <time dateTime={value} title={title} className="whitespace-nowrap" suppressHydrationWarning>
      {relativeTime(date)}
    </time>
  );
}
