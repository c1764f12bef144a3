import { spawn } from 'node:child_process';
import path from 'node:path';

export type CliRun = { code: number | null; stdout: string; stderr: string };

/**
 * The CLI as an auditor runs it, in a process of its own with no DATABASE_URL and `dataDir` as its
 * embedded database folder (give one that does not exist to prove a command opens no database);
 * `clockAheadMs` moves the process's clock forward (test/clock-ahead.mjs).
 */
export function runCli(args: string[], dataDir: string, options: { clockAheadMs?: number } = {}): Promise<CliRun> {
  const ahead = options.clockAheadMs ? ['--import', path.resolve('test/clock-ahead.mjs')] : [];
  return runNode([...ahead, 'scripts/cli.ts', ...args], {
    DATABASE_URL: undefined,
    COUNTERSIGN_DATA_DIR: dataDir,
    CLOCK_AHEAD_MS: options.clockAheadMs ? String(options.clockAheadMs) : undefined,
  });
}

/** A year, for running a verifier with its clock moved forward. */
export const A_YEAR_MS = 366 * 24 * 3600 * 1000;

/**
 * A TypeScript entry point (a script, or `--input-type=module -e …`) run to its end by Node with
 * tsx, in our environment with `env` laid over it (undefined removes a setting).
 */
export function runNode(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  const merged: Record<string, string | undefined> = { ...process.env, ...env };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: process.cwd(),
      env: merged as NodeJS.ProcessEnv,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
