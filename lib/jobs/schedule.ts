/**
 * What calls a job on its interval: real timers (unref'd: they never keep the process alive), or a
 * test's own clock, which moves only when the test says (test/manual-clock.ts). Answers a function
 * that stops the calls.
 */
export type Clock = { every(ms: number, tick: () => void): () => void };

export const timerClock: Clock = {
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** The jobs of one worker: what runs now, how to stop their intervals, and whether it is stopping. */
export type JobSet = { running: Set<Promise<void>>; cancels: (() => void)[]; stopped: boolean; clock: Clock };

export function jobSet(clock: Clock = timerClock): JobSet {
  return { running: new Set(), cancels: [], stopped: false, clock };
}

/**
 * Runs `job` now and every `ms` on the set's clock; answers a wake-up that runs it now, or right
 * after a run in progress when `overlap` runs are under way. At most `overlap` runs at once (1: the
 * job never overlaps itself). `job` answers whether more is due now (it took a full batch): then it
 * runs again as soon as it ends. `job` must not reject.
 */
export function scheduleJob(
  jobs: JobSet,
  { ms, overlap = 1 }: { ms: number; overlap?: number },
  job: () => Promise<boolean>,
): () => void {
  let runs = 0;
  // A wake-up while every run slot is busy may be for a row those runs' claims did not see: run once more after one
  // ends.
  let wokenWhileBusy = false;
  const tick = () => {
    if (runs >= overlap || jobs.stopped) return;
    runs++;
    const run = job().then((more) => {
      runs--;
      jobs.running.delete(run);
      if (wokenWhileBusy || more) {
        wokenWhileBusy = false;
        tick();
      }
    });
    jobs.running.add(run);
  };
  jobs.cancels.push(jobs.clock.every(ms, tick));
  tick();
  return () => {
    if (runs >= overlap) wokenWhileBusy = true;
    else tick();
  };
}

/** Stops the intervals; answers once every run under way has ended. */
export async function stopJobs(jobs: JobSet, also: Promise<unknown>[] = []): Promise<void> {
  jobs.stopped = true;
  for (const cancel of jobs.cancels) cancel();
  await Promise.allSettled([...jobs.running, ...also]);
}
