'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';
import { useNow } from '@/components/use-now';

/** Refreshes the page every few seconds while the outcome can still change (approved, executing, checking). */
export function ExecutionRefresher({ everyMs = 2_000 }: { everyMs?: number }) {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => router.refresh(), everyMs);
    return () => clearInterval(timer);
  }, [router, everyMs]);
  return null;
}

/** "next in 40 s", counting down from the server's render time; "now" once due. */
export function NextCheckIn({ at, renderedAt }: { at: string; renderedAt: string }) {
  const now = useNow(renderedAt, 1_000);
  const seconds = Math.max(0, Math.ceil((new Date(at).getTime() - now) / 1_000));
  const text =
    seconds === 0 ? 'next now' : seconds < 120 ? `next in ${seconds} s` : `next in ${Math.round(seconds / 60)} min`;
  return (
    <span data-testid="execution-next-check" suppressHydrationWarning className="tabular-nums">
      {text}
    </span>
  );
}
