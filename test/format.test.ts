import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The format step of `npm test` (`biome ci .` in scripts/test.ts, with the repository's biome.json):
 * a file the formatter would change, or whose imports are out of order, fails it.
 */
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-format-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Runs the step's command over one file; answers its exit status and what it printed. */
function check(name: string, source: string): { status: number | null; output: string } {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, source);
  const result = spawnSync(
    process.execPath,
    ['node_modules/@biomejs/biome/bin/biome', 'ci', '--colors=off', '--config-path=biome.json', file],
    { encoding: 'utf8' },
  );
  return { status: result.status, output: result.stdout + result.stderr };
}

describe('the format step', () => {
  it.each([
    ['double quotes', 'unquoted.ts', 'export const a = "x";\n', 'format'],
    ['no semicolon', 'semicolon.ts', "export const a = 'x'\n", 'format'],
    ['a line over the width', 'wide.ts', `export const a = [${"'word', ".repeat(20)}];\n`, 'format'],
    [
      'imports out of order',
      'imports.ts',
      "import { b } from './b';\nimport { a } from './a';\n\nexport const c = [a, b];\n",
      'organizeImports',
    ],
  ])('fails on %s', (_case, name, source, diagnostic) => {
    const { status, output } = check(name, source);
    expect(status).not.toBe(0);
    expect(output).toContain(diagnostic);
  });

  it('passes a formatted file, its side-effect import left where it is', () => {
    const source =
      "import 'server-only';\nimport { b } from './b';\nimport 'tsx';\nimport { a } from './a';\n\nexport const c = [a, b];\n";
    expect(check('formatted.ts', source)).toMatchObject({ status: 0 });
  });
});
