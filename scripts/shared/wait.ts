/** The one way scripts and end-to-end tests wait for something: poll a condition until it holds. */
import type { ChildProcess } from 'node:child_process';

/** A process a wait depends on: if it exits first, the wait fails at once, with what it said when known. */
export type Watched = { child: ChildProcess; name: string; said?: () => string };

type UntilOptions = { pollMs?: number; watched?: Watched };

const withSaid = (message: string, watched: Watched | undefined) =>
  watched?.said ? `${message}:\n${watched.said()}` : message;

/** Polls `condition` until it holds; throws naming `what` when `ms` pass first or the watched process exits. */
export async function until(
  what: string,
  ms: number,
  condition: () => Promise<boolean> | boolean,
  { pollMs = 250, watched }: UntilOptions = {},
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (watched && watched.child.exitCode !== null)
      throw new Error(
        withSaid(`${watched.name} exited with code ${watched.child.exitCode} while waiting for ${what}`, watched),
      );
    if (await condition()) return;
    if (Date.now() > deadline)
      throw new Error(withSaid(`gave up waiting for ${what} after ${Math.round(ms / 1000)} s`, watched));
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Polls `condition` until it holds or `ms` pass; answers whether it held (no throw). */
export async function within(
  ms: number,
  condition: () => Promise<boolean> | boolean,
  pollMs = 1_000,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Whether `url` answers 2xx now (a hung connection counts as no after 2 s). */
export const answersOk = (url: string): Promise<boolean> =>
  fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
    (response) => response.ok,
    () => false,
  );

/** Polls a health URL (`…/api/health`, `…/health`) until it answers 2xx; fails early if the watched server exits. */
export async function waitForHealth(url: string, watched: Watched, ms: number): Promise<void> {
  await until(`${watched.name} to be healthy at ${url}`, ms, () => answersOk(url), { watched });
}
