import { expect, it } from 'vitest';
import { setupCountingDatabase, setupTestDatabase } from '@/test/db';
import { manualClock } from '@/test/manual-clock';
import { startWorker } from './worker';

const t = setupTestDatabase();
const counting = setupCountingDatabase(t, 'idle.postgres.int.test.ts');

const MINUTES = 2;

/**
 * issue 36 §6: jobs a notification wakes poll only as a backstop, so an idle worker on an empty
 * database sends at most one statement (so at most one transaction) every 2 seconds. Counted over
 * a fixed number of one-second ticks of the worker's clock, each tick's runs awaited: never timed.
 */
it('an idle worker on an empty database sends at most one statement every 2 seconds', async () => {
  const clock = manualClock();
  const errors: string[] = [];
  const worker = startWorker(counting.db, {
    executorBaseUrl: 'http://127.0.0.1:9',
    clock,
    listen: t.handle.listen,
    log: () => {},
    logError: (line) => errors.push(line),
  });
  try {
    // The first run of every job at start is not idling: count from the first tick on.
    await worker.settled();
    const statements = await counting.statementsOf(async () => {
      for (let second = 0; second < MINUTES * 60; second++) {
        clock.advance(1_000);
        await worker.settled();
      }
    });
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThanOrEqual((MINUTES * 60) / 2);
  } finally {
    await worker.stop();
  }
  expect(errors).toEqual([]);
});
