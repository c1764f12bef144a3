import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenants } from '@/db/schema';
import { runNode } from '@/test/cli';
import { setupTestDatabase, testDatabaseUrl } from '@/test/db';
import { definitionHistory } from './store';

/**
 * `npm run cli -- actions:apply|actions:plan` as a process, on a real database: what it prints and
 * its exit code. What the commands say is tested in-process (store.int.test.ts); here, two runs.
 */
const t = setupTestDatabase();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-actions-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const cli = (...args: string[]) => runNode(['scripts/cli.ts', ...args], { DATABASE_URL: testDatabaseUrl(t.handle) });

beforeAll(async () => {
  await t.db.insert(tenants).values({ id: 'acme', name: 'Acme' });
});

describe('the actions CLI', () => {
  it('actions:apply publishes the file as v1, audited: exit 0', async () => {
    const done = await cli('actions:apply', 'demo/actions/issue_refund.json', '--tenant', 'acme', '--note', 'Refunds');
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^issue_refund: new, publishing it makes v1\.\n/);
    expect(done.stdout).toContain('Published issue_refund v1 in acme.');
    expect(
      (await definitionHistory(t.db, 'acme', 'issue_refund')).map((row) => [row.version, row.publishedBy]),
    ).toEqual([[1, 'cli']]);
  });

  it('actions:plan of a broken file prints each problem by its path: exit 1', async () => {
    const document = JSON.parse(fs.readFileSync('demo/actions/issue_refund.json', 'utf8')) as Record<string, unknown>;
    const file = path.join(dir, 'broken.json');
    fs.writeFileSync(file, JSON.stringify({ ...document, colour: 'red', claims: 'reason' }));
    const refused = await cli('actions:plan', file, '--tenant', 'acme');
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stdout).toContain(
      'The definition has 1 problem(s):\n  colour: "colour" is not a field of a definition; remove it.',
    );
    expect(refused.stderr).toContain(`Error: ${file} is not a valid action definition`);
  });
});
