import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishableKeyFile } from './key-file';

/** issue 35 §6: a private signing key never lands, unignored, in a git work tree. */
let root = '';
let outside = '';
beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-clone-')));
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-keys-')));
  expect(spawnSync('git', ['init', '--quiet', root]).status).toBe(0);
  fs.writeFileSync(path.join(root, '.gitignore'), 'keys.json\n');
  fs.mkdirSync(path.join(root, 'sub'));
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

describe('where a signing key may be written', () => {
  it.each([
    ['a file in the work tree', 'mine.json', true],
    ['a file in a folder of the work tree', 'sub/keys-2026.json', true],
    ['an ignored name in the work tree', 'keys.json', false],
    ['an ignored name in a folder', 'sub/keys.json', false],
  ])('%s (%s)', (_, file, refused) => {
    const problem = publishableKeyFile(path.join(root, file));
    expect(problem === undefined).toBe(!refused);
    if (refused) expect(problem).toContain('one `git add .` would publish it');
  });

  it('outside any work tree', () => {
    expect(publishableKeyFile(path.join(outside, 'keys.json'))).toBeUndefined();
  });

  it('the CLI refuses to print a key into an unignored file of a work tree, and prints it elsewhere', () => {
    const cli = (file: string) => {
      const out = fs.openSync(file, 'w');
      try {
        return spawnSync(
          process.execPath,
          ['--import', 'tsx', path.join(process.cwd(), 'scripts/cli.ts'), 'signing-key'],
          { cwd: process.cwd(), stdio: ['ignore', out, 'pipe'], encoding: 'utf8' },
        );
      } finally {
        fs.closeSync(out);
      }
    };
    const inside = path.join(root, 'mine.json');
    const refused = cli(inside);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('refusing to write a private signing key');
    expect(fs.readFileSync(inside, 'utf8')).toBe('');
    const kept = path.join(outside, 'keys.json');
    expect(cli(kept).status).toBe(0);
    expect(JSON.parse(fs.readFileSync(kept, 'utf8'))).toMatchObject([{ kty: 'OKP', crv: 'Ed25519' }]);
  });
});
