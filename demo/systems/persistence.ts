import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describeIssues, stateFileSchema } from './schemas';
import type { Ledgers } from './world';

/**
 * The optional data file keeps the ledgers across restarts of the demo. It is read once at start
 * and rewritten atomically (temporary file + rename) after every committed write, so a crash
 * leaves either the old file or the new one, never half of one.
 */

export class DataFileError extends Error {
  constructor(file: string, problem: string) {
    super(`The systems-of-record data file ${file} ${problem}; move it away to start from the seeded world.`);
    this.name = 'DataFileError';
  }
}

/** The ledgers stored in `file`, or undefined when there is no such file yet. */
export function loadLedgers(file: string): Ledgers | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DataFileError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DataFileError(file, 'is not JSON');
  }
  const parsed = stateFileSchema.safeParse(json);
  if (!parsed.success)
    throw new DataFileError(file, `is not a systems-of-record state file (${describeIssues(parsed.error)})`);
  return { refunds: parsed.data.refunds, holds: parsed.data.holds };
}

export function saveLedgers(file: string, ledgers: Ledgers): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(temporary, `${JSON.stringify({ version: 1, ...ledgers }, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
