/**
 * The versioned corpus (corpus/<action>/v<N>/*.json) through the same runner as `npm run corpus`,
 * on the project's database driver: the gates accept no invalid request and reject no valid one,
 * every case gets exactly the answer it expects, and the permissive baseline, on the same bytes,
 * accepts invalid requests — the contrast the corpus exists to measure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allActions } from '@/lib/actions/registry';
import { createTestDatabase, type TestDatabase } from '@/test/db';
import { loadCorpus } from './format';
import { type CorpusRun, failures, formatReport, runCorpus, summarize } from './run';

let database: TestDatabase;
let run: CorpusRun;

beforeAll(async () => {
  database = await createTestDatabase();
  run = await runCorpus({ db: database.db });
});

afterAll(async () => {
  await database?.dispose();
});

describe('the corpus', () => {
  it('covers every action at its current contract version with at least 25 cases, valid and invalid', () => {
    const suites = loadCorpus();
    for (const action of allActions()) {
      const current = action.contracts.find((contract) => contract.status === 'current')!;
      const suite = suites.find((s) => s.action === action.name && s.version === current.version);
      expect(suite, `no corpus for ${action.name} v${current.version}`).toBeDefined();
      expect(suite!.cases.length).toBeGreaterThanOrEqual(25);
      expect(suite!.cases.some((c) => c.expect.outcome === 'accepted')).toBe(true);
      expect(suite!.cases.some((c) => c.repairs !== undefined)).toBe(true);
    }
  });

  it('runs every case, on both sides', () => {
    const total = loadCorpus().reduce((n, suite) => n + suite.cases.length, 0);
    expect(run.suites.reduce((n, suite) => n + suite.results.length, 0)).toBe(total);
  });

  it('meets every expectation: status, kind, code and the fields named', () => {
    const mismatches = run.suites.flatMap((suite) =>
      summarize(suite).mismatches.map((m) => `${suite.suite.action} v${suite.suite.version} ${m.where}: ${m.problem}`),
    );
    expect(mismatches).toEqual([]);
  });

  it.each(['hold_stock', 'issue_refund'])(
    '%s: the gates accept no invalid request and reject no valid one',
    (action) => {
      const suite = run.suites.find((s) => s.suite.action === action);
      expect(suite).toBeDefined();
      const { gates } = summarize(suite!);
      expect(gates.invalidTotal).toBeGreaterThan(0);
      expect(gates.validTotal).toBeGreaterThan(0);
      expect({ invalidAccepted: gates.invalidAccepted, validRejected: gates.validRejected }).toEqual({
        invalidAccepted: 0,
        validRejected: 0,
      });
    },
  );

  it.each(['hold_stock', 'issue_refund'])(
    '%s: the permissive baseline accepts invalid requests (and no fewer valid ones)',
    (action) => {
      const { baseline } = summarize(run.suites.find((s) => s.suite.action === action)!);
      expect(baseline.invalidAccepted).toBeGreaterThan(0);
      expect(baseline.validRejected).toBe(0);
    },
  );

  it('measures repairs per original request from real repair chains', () => {
    for (const suite of run.suites) {
      const { repairs } = summarize(suite);
      expect(repairs.repairs).toBeGreaterThan(0);
      expect(repairs.chainsAccepted).toBeGreaterThan(0);
      expect(repairs.chainsAtLimit).toBeGreaterThan(0);
    }
  });

  it('reports both sides side by side and passes', () => {
    const report = formatReport(run);
    expect(report).toMatch(/hold_stock v1 — \d+ cases/);
    expect(report).toMatch(/issue_refund v1 — \d+ cases/);
    expect(report).toMatch(/invalid accepted +0 \/ \d+ \(0\.0%\) +[1-9]\d* \/ \d+/);
    expect(failures(run)).toEqual([]);
  });
});
