/**
 * The work of the scanners of untrusted text, counted: one step for each character, candidate or
 * list item their own loops examine. lib/proposals/scanners.test.ts compares step counts to show
 * each scanner linear in its input: a count, unlike a time, is the same on a loaded machine. The
 * regular expressions' own work is not counted (the engine does not expose it): it is timed in
 * scripts/bench/scanners.ts. No imports: client components use lib/text.
 */
export const scanSteps = { taken: 0 };

/** Counts one step; true, so a filter or some callback can begin with `step() &&`. */
export function step(): true {
  scanSteps.taken += 1;
  return true;
}
