'use client';

import { useEffect, useState } from 'react';

/**
 * The current time in milliseconds, starting from the server's render time (so the first client
 * render matches the HTML) and ticking every `everyMs` after hydration.
 */
export function useNow(renderedAt: string, everyMs: number): number {
  const [now, setNow] = useState(() => new Date(renderedAt).getTime());
  useEffect(() => {
    const tick = () => setNow(Date.now());
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, everyMs);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [everyMs]);
  return now;
}
