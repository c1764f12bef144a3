import type { Clock } from '@/lib/jobs/schedule';

export type ManualClock = Clock & {
  /** Moves time on by `ms`, calling each interval as often as it comes due, in time order. */
  advance(ms: number): void;
  /** Intervals not stopped. */
  readonly active: number;
};

/** A clock for the worker's jobs that moves only when the test advances it: ticks are counted, never timed. */
export function manualClock(): ManualClock {
  let now = 0;
  const intervals = new Set<{ ms: number; next: number; tick: () => void }>();
  return {
    every(ms, tick) {
      const interval = { ms, next: now + ms, tick };
      intervals.add(interval);
      return () => void intervals.delete(interval);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...intervals].filter((interval) => interval.next <= until).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        now = due.next;
        due.next += due.ms;
        due.tick();
      }
      now = until;
    },
    get active() {
      return intervals.size;
    },
  };
}
