/**
 * Runs the Playwright suite against the production build, on a fresh data folder and, when
 * DATABASE_URL is set, a fresh PostgreSQL database that is dropped afterwards.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { childEnvironment, env } from '@/lib/env';

async function main(): Promise<number> {
  const baseUrl = env().DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-e2e-'));
  const dbName = `cs_e2e_${randomBytes(6).toString('hex')}`;
  let admin: postgres.Sql | undefined;
  let databaseUrl: string | undefined;
  if (baseUrl) {
    admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${dbName}`);
    const url = new URL(baseUrl);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  const args = process.argv.slice(2);
  // Specs named (or a title filtered) on the command line run alone, in one worker, without the
  // projects the config runs first: no other spec shares the server with them, whichever project they are in.
  const named = args.some((arg) => !arg.startsWith('-'));
  console.log(`e2e: server on ${databaseUrl ? `PostgreSQL (database ${dbName})` : 'PGlite'}, data in ${dataDir}`);
  try {
    const result = spawnSync(
      process.execPath,
      ['node_modules/@playwright/test/cli.js', 'test', ...(named ? ['--workers=1', '--no-deps'] : []), ...args],
      {
        stdio: 'inherit',
        env: childEnvironment({ E2E_DATA_DIR: dataDir, ...(databaseUrl ? { E2E_DATABASE_URL: databaseUrl } : {}) }),
      },
    );
    return result.status ?? 1;
  } finally {
    if (admin) {
      await admin.unsafe(`drop database if exists ${dbName} with (force)`);
      await admin.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('e2e setup failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
