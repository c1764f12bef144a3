'use client';

import { absoluteTime, humanDuration } from '@/components/time';
import { useNow } from '@/components/use-now';

type Props = {
  /** ISO time the proposal expires. */
  expiresAt: string;
  /** The server's clock when the page was rendered, so the first client render matches it. */
  renderedAt: string;
};

/**
 * "expires in 23 h 12 m", refreshed every 30 s, with the absolute UTC time on hover. A fixed
 * minimum width and tabular digits keep the line from jumping as the text changes.
 */
export function Countdown({ expiresAt, renderedAt }: Props) {
  const now = useNow(renderedAt, 30_000);
  const expires = new Date(expiresAt);
  const left = expires.getTime() - now;
  return (
    <span
      data-testid="countdown"
      data-expires-at={expiresAt}
      title={absoluteTime(expires)}
      className={
        'inline-block min-w-[17rem] text-sm tabular-nums ' +
        (left <= 0
          ? 'text-red-700 dark:text-red-300'
          : left < 3_600_000
            ? 'text-amber-700 dark:text-amber-300'
            : 'text-zinc-500')
      }
    >
      {left > 0 ? `expires in ${humanDuration(left)}` : 'expired — a timeout never approves'}
    </span>
  );
}
