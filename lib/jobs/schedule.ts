/** The jobs of one worker: what runs now, the timers, and whether it is stopping. */
export type JobSet = { running: Set<Promise<void>>; timers: NodeJS.Timeout[]; stopped: boolean };

export function jobSet(): JobSet {
  return { running: new Set(), timers: [], stopped: false };
}

/**
 * Runs `job` now and every `ms` (an unref'd timer: it never keeps the process alive); answers a
 * wake-up that runs it now, or right after a run in progress when `overlap` runs are under way.
 * At most `overlap` runs at once (1: the job never overlaps itself). `job` must not reject.
 */
export function scheduleJob(jobs: JobSet, { ms, overlap = 1 }: { ms: number; overlap?: number }, job: () => Promise<void>): () => void {
  let runs = 0;
  // A wake-up while every run slot is busy may be for a row those runs' claims did not see: run once more after one ends.
  let wokenWhileBusy = false;
  const tick = () => {
    if (runs >= overlap || jobs.stopped) return;
    runs++;
    const run = job().finally(() => {
      runs--;
      jobs.running.delete(run);
      if (wokenWhileBusy) {
        wokenWhileBusy = false;
        tick();
      }
    });
    jobs.running.add(run);
  };
  const timer = setInterval(tick, ms);
  timer.unref();
  jobs.timers.push(timer);
  tick();
  return () => {
    if (runs >= overlap) wokenWhileBusy = true;
    else tick();
  };
}

/** Stops the timers; answers once every run under way has ended. */
export async function stopJobs(jobs: JobSet, also: Promise<unknown>[] = []): Promise<void> {
  jobs.stopped = true;
  for (const timer of jobs.timers) clearInterval(timer);
  await Promise.allSettled([...jobs.running, ...also]);
}
