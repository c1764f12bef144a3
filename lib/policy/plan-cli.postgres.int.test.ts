import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runNode } from '@/test/cli';
import { setupTestDatabase, testDatabaseUrl } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { currentPolicies } from './current';
import type { PolicyView } from './requests';

/**
 * `npm run cli -- policy:plan FILE --tenant <id> [--days N]` on a real database: the plan printed, refusals with their
 * issues.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-plan-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const plan = (...args: string[]) =>
  runNode(['scripts/cli.ts', 'policy:plan', ...args], { DATABASE_URL: testDatabaseUrl(t.handle) });
const write = (name: string, value: unknown) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
};

describe('policy:plan', () => {
  let file = '';
  let entry: PolicyView;

  it('prints the change in words and each flipping proposal with counts, exit 0', async () => {
    const ids: string[] = [];
    for (const [n, amountMinor] of [
      [1, 3000],
      [2, 6000],
      [3, 9000],
    ] as const) {
      const body = {
        requestId: `req_cli_plan_${n}`,
        action: 'issue_refund',
        contractVersion: 1,
        args: { orderId: `ord_q500${n}`, amountMinor, currency: 'EUR', reason: 'Partial refund' },
      };
      ids.push((await submitAs(t.db, systems.client, seeded.acme, body)).proposal.id);
    }
    entry = (await currentPolicies(t.db, 'acme')).find((view) => view.action === 'issue_refund')!;
    entry.rules = [{ ...entry.rules[0]!, when: { ...entry.rules[0]!.when!, above: 5000 } }, entry.rules[1]!];
    file = write('draft.json', { policies: [entry] });

    const done = await plan(file, '--tenant', 'acme', '--days', '7');
    expect(done.code, done.stderr).toBe(0);
    const lines = done.stdout.trim().split('\n');
    expect(lines[0]).toBe('issue_refund v2 → v3:');
    expect(lines[1]).toMatch(
      /^ {2}Rule refunds-over-100: When amountMinor .* is above 50\.00 EUR \(5000 minor units\) → needs 2 distinct approvers \(was above 100\.00 EUR \(10000 minor units\)\)\.$/,
    );
    // The descriptions and ids that still name 100.00, one warning a line.
    expect(lines.slice(2, 6)).toEqual([
      'Warning (issue_refund): Rule refunds-over-100: The description says 100.00, but the bound is 50.00 EUR (5000 minor units).',
      expect.stringMatching(
        /^Warning \(issue_refund\): Rule refunds-over-100: The id refunds-over-100 names 100, .* Ids are not renamed/,
      ),
      'Warning (issue_refund): Rule refunds-up-to-100: The description says 100.00, but the rules before it are bounded at 50.00 EUR (5000 minor units).',
      expect.stringMatching(/^Warning \(issue_refund\): Rule refunds-up-to-100: The id refunds-up-to-100 names 100, /),
    ]);
    expect(lines.slice(6)).toEqual([
      'Backtest: 3 proposal(s) of the last 7 day(s) replayed; 2 would be routed differently.',
      '  2 × needs 1 distinct approver → needs 2 distinct approvers',
      `  ${ids[1]}  issue_refund on ord_q5002  needs 1 distinct approver → needs 2 distinct approvers (rule ` +
        `refunds-up-to-100 → refunds-over-100)`,
      `  ${ids[2]}  issue_refund on ord_q5003  needs 1 distinct approver → needs 2 distinct approvers (rule ` +
        `refunds-up-to-100 → refunds-over-100)`,
    ]);
  });

  it('refuses a document that does not validate, with its issues: exit 1', async () => {
    const bad = await plan(write('bad.json', { policies: [{ ...entry, expiryHours: 0 }] }), '--tenant', 'acme');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Error: The policy is not valid');
    expect(bad.stderr).toContain('"policies.0.expiryHours"');
  });

  // Each a process of its own: the arguments are made when the row runs (the draft file is the first test's).
  it.each([
    ['a missing file', () => [path.join(dir, 'missing.json'), '--tenant', 'acme'], 'cannot read'],
    ['a file that is not JSON', () => [write('text.json', 'not json'), '--tenant', 'acme'], 'is not JSON'],
    ['an unknown tenant', () => [file, '--tenant', 'nowhere'], 'No tenant "nowhere"'],
  ])('refuses %s: exit 1', async (_label, args, says) => {
    const refused = await plan(...args());
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(says);
  });

  it.each([
    ['no file', () => [], 'missing policy document file'],
    ['no --tenant', () => [file], 'missing --tenant'],
    ['--days 0', () => [file, '--tenant', 'acme', '--days', '0'], '--days takes a whole number of days from 1 to 365'],
    ['--days 366', () => [file, '--tenant', 'acme', '--days', '366'], '--days takes'],
  ])('%s is a usage error: exit 2', async (_label, args, says) => {
    const usage = await plan(...args());
    expect(usage.code, usage.stderr).toBe(2);
    expect(usage.stderr).toContain(says);
  });
});
