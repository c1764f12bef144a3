import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The repository stands on its own: nothing in it points at the design folder it grew from beside
 * the clone (a clone has no such folder). The pattern is escaped so this file does not match itself.
 */
const OUTSIDE_FOLDER = /\.\.\/shared\b/;

describe('the repository stands on its own', () => {
  it('no tracked file mentions a folder outside the clone', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0').filter(Boolean);
    expect(files.length).toBeGreaterThan(100);
    const mentioning = files.filter(
      (file) =>
        fs.existsSync(file) && !/\.(png|ico|woff2?)$/.test(file) && OUTSIDE_FOLDER.test(fs.readFileSync(file, 'utf8')),
    );
    expect(mentioning).toEqual([]);
  });
});
