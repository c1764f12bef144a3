import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY_POINTS, start } from './start-failures';

// The server at DATABASE_URL, reached with a database or a role it does not have: the real
// driver errors (3D000, 28000) as `npm run demo` reports them. A wrong password (28P01) needs password
// authentication, which a trust-auth test server never asks for: test/database-failure.test.ts maps that one.

let dataDir = '';
beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-start-'));
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** DATABASE_URL with another user (and a password) or another database. */
function variant(change: { user?: string; database?: string }): string {
  const url = new URL(process.env.DATABASE_URL!);
  if (change.user) url.username = change.user;
  url.password = PASSWORD;
  if (change.database) url.pathname = `/${change.database}`;
  return url.toString();
}

const PASSWORD = 'db-password-never-shown-8c2d';
const missing = `cs_missing_${randomBytes(6).toString('hex')}`;

describe('npm run demo against the PostgreSQL server of DATABASE_URL', () => {
  it.each([
    ['a database it does not have', { database: missing }, `database "${missing}" does not exist on`],
    [
      'a role it does not have',
      { user: missing },
      `authentication failed for user "${missing}" (28000: role "${missing}" does not exist)`,
    ],
  ])('with %s: names the cause, shows the URL without its password, exits 1', async (_label, change, says) => {
    const url = variant(change);
    const run = await start(ENTRY_POINTS[0]!, { COUNTERSIGN_DATA_DIR: dataDir, DATABASE_URL: url });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.code, output).toBe(1);
    expect(run.stderr).toContain(`Countersign cannot use the database at ${url.replace(PASSWORD, '***')}: `);
    expect(run.stderr).toContain(says);
    expect(output).not.toContain(PASSWORD);
  });
});
