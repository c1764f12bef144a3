import { describe, expect, it } from 'vitest';
import { jobSet, scheduleJob, stopJobs } from './schedule';

const HOUR = 3_600_000;

/** A job whose runs each wait until the test ends them, in the order they started. */
function heldJob() {
  const ends: ((more: boolean) => void)[] = [];
  let started = 0;
  const job = () => {
    started++;
    return new Promise<boolean>((resolve) => ends.push(resolve));
  };
  return { job, started: () => started, endNext: (more = false) => ends.shift()?.(more) };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('scheduleJob', () => {
  it.each([
    { overlap: 1, runningAfterTwoWakes: 1, remembered: 1 },
    { overlap: 2, runningAfterTwoWakes: 2, remembered: 1 },
    { overlap: 4, runningAfterTwoWakes: 3, remembered: 0 },
  ])(
    'with overlap $overlap, a wake while runs are under way starts another only below the limit',
    async ({ overlap, runningAfterTwoWakes, remembered }) => {
      const jobs = jobSet();
      const held = heldJob();
      const wake = scheduleJob(jobs, { ms: HOUR, overlap }, held.job);
      expect(held.started()).toBe(1);
      wake();
      wake();
      expect(held.started()).toBe(runningAfterTwoWakes);
      expect(jobs.running.size).toBe(runningAfterTwoWakes);
      for (let i = 0; i < runningAfterTwoWakes; i++) held.endNext();
      await settle();
      // A wake that found no free slot is remembered: one more run follows once one ends.
      expect(held.started()).toBe(runningAfterTwoWakes + remembered);
      while (jobs.running.size > 0) {
        held.endNext();
        await settle();
      }
      await stopJobs(jobs);
    },
  );

  it('runs again as soon as a run says more is due (a full batch), and rests once one says not', async () => {
    const jobs = jobSet();
    const held = heldJob();
    scheduleJob(jobs, { ms: HOUR }, held.job);
    for (const more of [true, true, true]) {
      held.endNext(more);
      await settle();
    }
    expect(held.started()).toBe(4);
    held.endNext(false);
    await settle();
    expect(held.started()).toBe(4);
    expect(jobs.running.size).toBe(0);
    await stopJobs(jobs);
  });

  it('stops: no run after stopJobs, which waits for the runs under way', async () => {
    const jobs = jobSet();
    const held = heldJob();
    const wake = scheduleJob(jobs, { ms: HOUR, overlap: 2 }, held.job);
    let stopped = false;
    const stopping = stopJobs(jobs).then(() => (stopped = true));
    wake();
    expect(held.started()).toBe(1);
    await settle();
    expect(stopped).toBe(false);
    held.endNext();
    await stopping;
    expect(stopped).toBe(true);
  });
});
