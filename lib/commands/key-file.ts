import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The signing-key commands print private keys to standard output and never choose a file. When
 * that output is redirected into a git work tree (`… > keys.json` in the clone), one `git add .`
 * would publish a signing key: they refuse unless the file is git-ignored (issue 35 §6).
 */

/** The regular file standard output was redirected to, where the system says (Linux); else undefined. */
export function redirectedStdout(): string | undefined {
  try {
    const target = fs.readlinkSync('/proc/self/fd/1');
    return path.isAbsolute(target) && fs.statSync(target).isFile() ? target : undefined;
  } catch {
    return undefined;
  }
}

/** Why `file` must not receive a private key: inside a git work tree and not ignored there; else undefined. */
export function publishableKeyFile(file: string): string | undefined {
  const dir = path.dirname(file);
  const git = (...args: string[]) =>
    spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const root = git('rev-parse', '--show-toplevel');
  if (root.status !== 0) return undefined;
  if (git('check-ignore', '--quiet', '--no-index', file).status === 0) return undefined;
  return (
    `refusing to write a private signing key to ${file}: it is inside the git work ` +
    `tree ${root.stdout.trim()} and not ignored, ` +
    ('so one `git add .` would publish it. Write it outside the clone, e.g. > ' +
      '"${XDG_CONFIG_HOME:-$HOME/.config}/countersign/keys.json" (docs/operations.md#key-rotation)')
  );
}
