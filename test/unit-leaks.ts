import { afterAll, beforeAll } from 'vitest';
import { changedGlobalState, type GlobalState, globalState } from './global-state';

/**
 * A setup file of the unit project, whose files share one module graph and one process: a file
 * that leaves process.env or a global changed (a stub not undone, a replaced `fetch` or
 * `setTimeout`) fails itself, before the next file runs on what it left.
 */
let before: GlobalState | undefined;

beforeAll(() => {
  before = globalState();
});

afterAll(() => {
  if (!before) return;
  const found = changedGlobalState(before, globalState());
  if (found.length > 0) {
    throw new Error(
      `this file left ${found.join(', ')} changed: undo it (afterEach, finally), or add the file to UNIT_ISOLATED in test/unit-isolation.ts`,
    );
  }
});
