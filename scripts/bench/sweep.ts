/**
 * The re-check sweep's cost at pending scale (issue 23), run in the bench process against the
 * bench's database and the demo systems of record, as the worker runs it (lib/jobs/recheck-open.ts,
 * 50 proposals per tenant per run): a run with nothing due, whose time is the scan every run pays
 * (reported per pending proposal), and runs that re-check, reported per proposal re-checked.
 * Anything due when it starts (a seeded history ends after earlier pending proposals were
 * proposed) is re-checked first, so the run with nothing due has nothing due.
 */
import type { Database } from '@/db/client';
import { recheckOpen } from '@/lib/jobs/recheck-open';
import type { SystemsClient } from '@/lib/systems/client';

/** Long enough that no pending proposal is due by time during the bench: only a finished sibling makes one due. */
const NEVER_BY_TIME_MS = 86_400_000;
/** Runs re-checking what is due before the measures, at most (50 per tenant each). */
const DRAIN_RUNS = 200;

export type SweepMeasure = {
  /** Proposals that were due when the measures began, re-checked first. */
  drained: number;
  /** One run with nothing due (p50 of `rounds`), and what it re-checked anyway (a sibling finished meanwhile). */
  idleMs: number;
  idleChecked: number;
  /** Runs with everything due: time per proposal re-checked, over `checks` re-checks. */
  perCheckMs: number;
  checks: number;
  /** Runs after a sibling on the hot resource ended: time per proposal re-checked there. */
  hot?: { perCheckMs: number; checks: number };
};

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const began = performance.now();
  const value = await run();
  return { ms: performance.now() - began, value };
}

/** Runs that re-check (each up to 50 per tenant), `rounds` of them: time per proposal re-checked. */
async function recheckRuns(db: Database, systems: SystemsClient, rounds: number, sweepAfterMs: number) {
  let ms = 0;
  let checks = 0;
  for (let i = 0; i < rounds; i++) {
    const run = await timed(() => recheckOpen(db, systems, { sweepAfterMs }));
    ms += run.ms;
    checks += run.value.checked;
  }
  return { perCheckMs: checks > 0 ? ms / checks : NaN, checks };
}

/**
 * `hot`, when given, ends one pending proposal on the hot resource (through the product), so every
 * other one there is due: a sibling finished since it was last checked. After `rounds` runs on it,
 * `hot.settle` marks the rest checked, as the worker would after re-checking all of them over the
 * next minutes (10,000 at 50 per 5 s), so the next size starts with nothing due.
 */
export async function measureSweep(
  db: Database,
  systems: SystemsClient,
  options: { rounds: number; hot?: { endSibling: () => Promise<void>; settle: () => Promise<void> } },
): Promise<SweepMeasure> {
  let drained = 0;
  for (let run = 0; run < DRAIN_RUNS; run++) {
    const { checked } = await recheckOpen(db, systems, { sweepAfterMs: NEVER_BY_TIME_MS });
    drained += checked;
    if (checked === 0) break;
  }
  const idle: number[] = [];
  let idleChecked = 0;
  for (let i = 0; i < options.rounds; i++) {
    const run = await timed(() => recheckOpen(db, systems, { sweepAfterMs: NEVER_BY_TIME_MS }));
    idle.push(run.ms);
    idleChecked += run.value.checked;
  }
  idle.sort((a, b) => a - b);
  const busy = await recheckRuns(db, systems, options.rounds, 0);
  let hot: SweepMeasure['hot'];
  if (options.hot) {
    await options.hot.endSibling();
    hot = await recheckRuns(db, systems, options.rounds, NEVER_BY_TIME_MS);
    await options.hot.settle();
  }
  return { drained, idleMs: idle[Math.floor(idle.length / 2)]!, idleChecked, ...busy, ...(hot ? { hot } : {}) };
}
