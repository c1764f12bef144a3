const POLL_MS = 250;

/** Polls `condition` until it holds; throws with `what` when `ms` pass first. */
export async function until(what: string, ms: number, condition: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${Math.round(ms / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Polls `condition` until it holds or `ms` pass; answers whether it held (no throw). */
export async function within(ms: number, condition: () => Promise<boolean> | boolean, pollMs = 1_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Runs `work` over `items` with at most `limit` at once. */
export async function pool<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
