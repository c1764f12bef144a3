import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * No product line is over the formatter's width. Biome wraps code but not a long string, template,
 * class list, JSX text or comment, so `biome ci` passes such a line: this check does not. Generated
 * files are whatever biome.json leaves out of formatting (drizzle/ among them), read from it here.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const biome = JSON.parse(fs.readFileSync(path.join(root, 'biome.json'), 'utf8')) as {
  files: { includes: string[] };
  formatter: { lineWidth: number };
};
const WIDTH = biome.formatter.lineWidth;

const PRODUCT = [
  'lib/*',
  'app/*',
  'components/*',
  'db/*',
  'scripts/*',
  'demo/*',
  'corpus/*',
  'proxy.ts',
  'instrumentation.ts',
  'next.config.ts',
];
const ROOT_CONFIGS = ['.dependency-cruiser.cjs', 'eslint.config.mjs', 'vitest.config.mts', 'playwright.config.ts'];
const SOURCE = /\.(ts|tsx|mts|cjs|mjs)$/;
const TEST = /\.test\.tsx?$/;

/** biome.json's `!path` entries: a folder (everything under it) or a file. */
const generated = biome.files.includes.filter((entry) => entry.startsWith('!')).map((entry) => entry.slice(1));
const isGenerated = (file: string) =>
  generated.some((entry) => path.matchesGlob(file, entry) || path.matchesGlob(file, `${entry}/**`));

/** The tracked product sources and root configs the width applies to. */
function productFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z', '--', ...PRODUCT, ...ROOT_CONFIGS, 'biome.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  return tracked
    .split('\0')
    .filter((file) => file !== '')
    .filter((file) => (SOURCE.test(file) && !TEST.test(file)) || file === 'biome.json')
    .filter((file) => !isGenerated(file));
}

/** The 1-based numbers of the lines longer than `width` characters (code points, as an editor counts). */
function linesOverWidth(text: string, width: number): number[] {
  return text.split('\n').flatMap((line, index) => ([...line].length > width ? [index + 1] : []));
}

describe('the line width', () => {
  it('finds a line over the width, and only that one', () => {
    const text = ['short', 'x'.repeat(WIDTH + 1), 'y'.repeat(WIDTH), '→'.repeat(WIDTH)].join('\n');
    expect(linesOverWidth(text, WIDTH)).toEqual([2]);
  });

  it('lists the product sources and root configs, and none of the generated files', () => {
    const files = productFiles();
    expect(files).toEqual(expect.arrayContaining(['lib/env.ts', 'components/ui/cn.ts', 'biome.json', ...ROOT_CONFIGS]));
    expect(files.filter((file) => TEST.test(file) || isGenerated(file))).toEqual([]);
    expect(isGenerated('drizzle/0000_init.sql')).toBe(true);
  });

  it(`holds every product line to ${WIDTH} characters`, () => {
    const over = productFiles().flatMap((file) =>
      linesOverWidth(fs.readFileSync(path.join(root, file), 'utf8'), WIDTH).map((line) => `${file}:${line}`),
    );
    expect(over).toEqual([]);
  });
});
