import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

/**
 * Which settings came from a file rather than the environment. `next start`, `next dev` and
 * `next build` load `.env*` files from the project folder (@next/env) before any of our code runs,
 * silently: a `.env` copied for another purpose then sets secrets and TRUST_PROXY for a server
 * that should have refused to start without them. The start-up line names what they set.
 */

/** The files @next/env loads for a mode, in its order of precedence (the first file to set a name wins). */
export function nextEnvFiles(nodeEnv: string | undefined): string[] {
  const mode = nodeEnv === 'test' ? 'test' : nodeEnv === 'development' ? 'development' : 'production';
  return [`.env.${mode}.local`, ...(mode === 'test' ? [] : ['.env.local']), `.env.${mode}`, '.env'];
}

export type FileSettings = { file: string; names: string[] };

/**
 * The names each env file in `dir` supplied to `environment`: set there, not set by an earlier
 * file, and holding the file's value (a value the real environment set differently won over the
 * file, which never overrides). A value that refers to another (`$NAME`) is expanded by @next/env,
 * so it counts whenever the name is set.
 */
export function settingsFromFiles(dir: string, environment: Record<string, string | undefined>): FileSettings[] {
  const claimed = new Set<string>();
  const found: FileSettings[] = [];
  for (const file of nextEnvFiles(environment.NODE_ENV)) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(dir, file), 'utf8');
    } catch {
      continue;
    }
    const names = Object.entries(parseEnv(text))
      .filter(([name]) => !claimed.has(name))
      .filter(([name, value]) => {
        claimed.add(name);
        const actual = environment[name];
        return actual !== undefined && (actual === value || (value ?? '').includes('$'));
      })
      .map(([name]) => name)
      .sort();
    if (names.length > 0) found.push({ file, names });
  }
  return found;
}

/** The start-up line for `settingsFromFiles`, or nothing when every setting came from the environment. */
export function fileSettingsLine(found: FileSettings[]): string | undefined {
  if (found.length === 0) return undefined;
  const parts = found.map(({ file, names }) => `${file} (${names.join(', ')})`);
  return (
    `[countersign] settings read from a file, not the environment: ${parts.join('; ')} — Next.js loads .env ` +
    `files from the project folder; move them into the environment or delete the file ` +
    `(docs/operations.md#configuration)`
  );
}
