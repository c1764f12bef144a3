import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';
// The repository's own rules, so a rule that stops matching fails here.
import config from '../.dependency-cruiser.cjs';

/** The layer rules of docs/architecture.md, as dependency-cruiser enforces them, run on tiny trees. */
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-layers-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

let trees = 0;

/** The names of the rules a tree of files (path → source, imports relative) breaks. */
async function broken(files: Record<string, string>): Promise<string[]> {
  const root = path.join(scratch, String(++trees));
  for (const [file, source] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), source);
  }
  const folders = [...new Set(Object.keys(files).map((file) => file.split('/')[0]!))];
  // The trees import relatively, so the repository's tsconfig (its '@/' paths) is left out.
  const options = { ...config.options, tsConfig: undefined };
  const { output } = await cruise(folders, { ...options, ruleSet: { forbidden: config.forbidden }, validate: true, baseDir: root });
  return [...new Set((output as ICruiseResult).summary.violations.map((violation) => violation.rule.name))].sort();
}

describe('layer rules', () => {
  it.each<[string, string[], Record<string, string>]>([
    [
      'two folders of lib/ importing each other, through different files',
      ['lib-folder-cycle'],
      { 'lib/a/x.ts': "import { y } from '../b/y';\nexport const x = y;\n", 'lib/b/y.ts': "import { z } from '../a/z';\nexport const y = z;\n", 'lib/a/z.ts': 'export const z = 1;\n' },
    ],
    [
      'a loop around three folders of lib/',
      ['lib-folder-cycle'],
      {
        'lib/a/x.ts': "import { y } from '../b/y';\nexport const x = y;\n",
        'lib/b/y.ts': "import { z } from '../c/z';\nexport const y = z;\n",
        'lib/c/z.ts': "import type { W } from '../a/w';\nexport const z: W = 1;\n",
        'lib/a/w.ts': 'export type W = number;\n',
      },
    ],
    [
      'two files of one folder importing each other',
      ['module-cycle'],
      { 'lib/a/x.ts': "import { y } from './y';\nexport const x = () => y;\n", 'lib/a/y.ts': "import { x } from './x';\nexport const y = () => x;\n" },
    ],
    ['db/ importing a type from lib/', ['db-imports-no-lib'], { 'db/schema.ts': "import type { F } from '../lib/a/flags';\nexport type Row = F;\n", 'lib/a/flags.ts': 'export type F = string;\n' }],
    ['a component importing a type from db/', ['components-import-no-db'], { 'components/c.tsx': "import type { Row } from '../db/schema';\nexport type P = Row;\n", 'db/schema.ts': 'export type Row = string;\n' }],
    [
      'one-way layers: components → lib → db, lib/a → lib/b',
      [],
      {
        'components/c.tsx': "import type { X } from '../lib/a/x';\nexport type P = X;\n",
        'lib/a/x.ts': "import { y } from '../b/y';\nexport type X = typeof y;\n",
        'lib/b/y.ts': "import type { Row } from '../../db/schema';\nexport const y: Row = 'y';\n",
        'db/schema.ts': 'export type Row = string;\n',
      },
    ],
  ])('%s: breaks %j', async (_label, rules, files) => {
    expect(await broken(files)).toEqual(rules);
  }, 30_000);
});
