import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Where each kind of thing is written once (CONTRIBUTING.md, "Duplicates check"); a second copy
 * fails here. Tests are not searched: they check what the code produces, in their own words.
 */
const FOLDERS = ['app', 'components', 'corpus', 'db', 'demo', 'e2e', 'lib', 'scripts', 'test'];
const isTest = (file: string) => /\.(test|spec)\.tsx?$/.test(file);

const sources = FOLDERS.flatMap((folder) =>
  fs
    .readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|tsx|mts)$/.test(file))
    .map((file) => path.join(folder, file))
    .filter((file) => !isTest(file)),
).map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));

const filesWith = (pattern: RegExp, within = FOLDERS) =>
  sources
    .filter(({ file, text }) => within.some((folder) => file.startsWith(`${folder}/`)) && pattern.test(text))
    .map(({ file }) => file);

describe('one of each', () => {
  it.each([
    ['intake-attempt rows are written by one function', /\.insert\(intakeAttempts\)/, ['lib/intake/write-attempt.ts']],
    ['the request id characters are spelled once', /A-Za-z0-9\._:-|A-Za-z0-9\._:\\-/, ['lib/ids.ts']],
    ['proposal ids are matched by one pattern', /\^prp_/, ['lib/ids.ts']],
    ['one health wait', /function waitForHealth|waitForHealth = /, ['scripts/shared/wait.ts']],
  ])('%s', (_what, pattern, expected) => {
    expect(filesWith(pattern)).toEqual(expected);
  });

  it('the product and its scripts never branch on a channel kind: its module says what differs', () => {
    // The demo world names its own three channels, as data.
    expect(
      filesWith(/kind === '(webhook|slack|email)'|'webhook' \| 'slack' \| 'email'/, [
        'app',
        'components',
        'lib',
        'scripts',
      ]),
    ).toEqual([]);
  });
});
