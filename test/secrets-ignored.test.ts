import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * Files that hold secrets when a reader follows the docs are git-ignored, so one `git add .` in
 * the clone publishes none of them (issue 35 §6): compose's settings, every file Next.js loads
 * settings from, and the signing-key files of docs/operations.md's rotation example.
 */
const ignored = (file: string) =>
  spawnSync('git', ['check-ignore', '--no-index', '--quiet', file], { cwd: process.cwd() }).status === 0;

describe('.gitignore', () => {
  it.each([
    'docker/compose.env',
    '.env',
    '.env.local',
    '.env.production',
    '.env.production.local',
    '.env.development',
    'keys.json',
    'rotated.json',
    'retired.json',
  ])('ignores %s', (file) => {
    expect(ignored(file)).toBe(true);
  });

  it('keeps .env.example, the settings list without values', () => {
    expect(ignored('.env.example')).toBe(false);
  });
});
