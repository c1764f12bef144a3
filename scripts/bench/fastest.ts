/** The fastest of a few runs of `run`, in ms: the one least disturbed by the rest of the machine. */
export function fastest(run: () => void, rounds = 3): number {
  let best = Infinity;
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}
