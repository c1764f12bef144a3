import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileSettingsLine, nextEnvFiles, settingsFromFiles } from './env-files';

/**
 * issue 35 §6: Next.js loads a `.env` left in the folder for `npm start` without a word; the
 * start-up line must name every setting it supplied. Next's own loader (@next/env) fills the
 * environment in a child process, as `next start` does, and our reading of it is checked there.
 */
const ROOT = process.cwd();
let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function folderWith(files: Record<string, string>): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-envfiles-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

/** `next start`'s loading in a fresh process, then what we read back: [found, start-up line]. */
function loadedByNext(folder: string, environment: { NODE_ENV: 'production' } & Record<string, string>) {
  const script = `
    import { fileSettingsLine, settingsFromFiles } from ${JSON.stringify(path.join(ROOT, 'lib/env-files.ts'))};
    import nextEnv from ${JSON.stringify(path.join(ROOT, 'node_modules/@next/env/dist/index.js'))};
    nextEnv.loadEnvConfig(process.argv[1], false, { info() {}, error: console.error });
    const found = settingsFromFiles(process.argv[1], process.env);
    console.log(JSON.stringify([found, fileSettingsLine(found) ?? null]));`;
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...environment };
  const ran = spawnSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script, folder], {
    encoding: 'utf8',
    env,
  });
  expect(ran.stderr).toBe('');
  return JSON.parse(ran.stdout) as [ReturnType<typeof settingsFromFiles>, string | null];
}

describe('settings read from .env files', () => {
  it('names every setting a .env supplied to a production server, and none the environment set', () => {
    const folder = folderWith({
      '.env':
        'AUTH_SECRET=from-the-file-0123456789abcdefghijklmnop\nTRUST_PROXY=1\nPORT=3000\n# a ' +
        'comment\nSIGNING_KEYS=\'[{"kid":"k"}]\'\n',
      '.env.production.local': 'APP_URL=https://from.file.example\nTRUST_PROXY=0\n',
      '.env.development': 'SMTP_URL=smtp://not.loaded.in.production\n',
    });
    const [found, line] = loadedByNext(folder, { NODE_ENV: 'production', PORT: '4000' });
    expect(found).toEqual([
      { file: '.env.production.local', names: ['APP_URL', 'TRUST_PROXY'] },
      { file: '.env', names: ['AUTH_SECRET', 'SIGNING_KEYS'] },
    ]);
    expect(line).toContain('.env.production.local (APP_URL, TRUST_PROXY); .env (AUTH_SECRET, SIGNING_KEYS)');
    expect(line).not.toContain('from-the-file');
  });

  it('counts a value that refers to another setting', () => {
    const folder = folderWith({ '.env': 'BASE=https://cs.example\nAPP_URL=${BASE}/\n' });
    const [found] = loadedByNext(folder, { NODE_ENV: 'production' });
    expect(found).toEqual([{ file: '.env', names: ['APP_URL', 'BASE'] }]);
  });

  it('says nothing when no file is there', () => {
    expect(loadedByNext(folderWith({}), { NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32) })).toEqual([[], null]);
    expect(fileSettingsLine([])).toBeUndefined();
  });

  it('follows the files @next/env reads for each mode', () => {
    expect(nextEnvFiles('production')).toEqual(['.env.production.local', '.env.local', '.env.production', '.env']);
    expect(nextEnvFiles(undefined)).toEqual(nextEnvFiles('production'));
    expect(nextEnvFiles('development')).toEqual(['.env.development.local', '.env.local', '.env.development', '.env']);
    expect(nextEnvFiles('test')).toEqual(['.env.test.local', '.env.test', '.env']);
  });
});
