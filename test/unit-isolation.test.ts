import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedGlobalState, globalState } from './global-state';
import { MODULE_STUBS, UNIT_ISOLATED } from './unit-isolation';

/** Every unit file: `*.test.ts` but not `*.int.test.ts`, in the unit projects' folders. */
function unitFiles(): string[] {
  return ['lib', 'demo', 'corpus', 'test'].flatMap((folder) =>
    fs
      .readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .map((file) => path.posix.join(folder, file.split(path.sep).join('/')))
      .filter((file) => file.endsWith('.test.ts') && !file.endsWith('.int.test.ts')),
  );
}

describe('the unit projects (issue 36 §1)', () => {
  it('a file that mocks a module or stubs a global or the environment runs isolated, and only such a file', () => {
    const files = unitFiles();
    expect(files.length).toBeGreaterThan(50);
    // This file names the calls in its own pattern, never calls them.
    const stubbing = files.filter(
      (file) => file !== 'test/unit-isolation.test.ts' && MODULE_STUBS.test(fs.readFileSync(file, 'utf8')),
    );
    expect(stubbing.sort()).toEqual([...UNIT_ISOLATED].sort());
  });

  it.each([
    {
      change: 'a stubbed global',
      apply: () => ((globalThis as { fetch: unknown }).fetch = () => undefined),
      named: 'globalThis.fetch',
    },
    {
      change: 'a removed global',
      apply: () => Reflect.deleteProperty(globalThis, 'structuredClone'),
      named: 'globalThis.structuredClone',
    },
    {
      change: 'a set variable',
      apply: () => (process.env.COUNTERSIGN_LEAK_PROBE = '1'),
      named: 'process.env.COUNTERSIGN_LEAK_PROBE',
    },
    { change: 'a removed variable', apply: () => delete process.env.PATH, named: 'process.env.PATH' },
  ])('a file that leaves $change behind is named by the shared project’s check', ({ apply, named }) => {
    const before = globalState();
    const saved = { fetch: globalThis.fetch, structuredClone: globalThis.structuredClone, env: { ...process.env } };
    try {
      apply();
      expect(changedGlobalState(before, globalState())).toEqual([named]);
    } finally {
      globalThis.fetch = saved.fetch;
      globalThis.structuredClone = saved.structuredClone;
      delete process.env.COUNTERSIGN_LEAK_PROBE;
      process.env.PATH = saved.env.PATH;
    }
    expect(changedGlobalState(before, globalState())).toEqual([]);
  });
});
