import type { Database } from '@/db';
import { findAction } from '@/lib/actions/registry';
import { changesInWords } from './words';
import { backtest, BACKTEST_DEFAULT_DAYS, BACKTEST_MAX_DAYS, type Backtest } from './backtest';
import { newestPolicy, samePolicy, storedRules } from './current';
import { policyDraftSchema } from './requests';
import { loadPolicy, type LoadedPolicy } from './routing';
import { parseDocument, stalePolicy } from './save';
import { invalid } from './validate';

/** One action the draft changes: the version it replaces, the one it would publish, and the change in sentences. */
export type PlannedChange = { action: string; version: number; nextVersion: number; words: string[] };

/** What `POST /api/v1/admin/policies/plan` answers. */
export type PolicyPlan = { changes: PlannedChange[]; backtest: Backtest };

/** The `days` query parameter: absent is 30; otherwise digits for 1–365, else 422 `invalid_days` naming `days`. */
export function backtestDays(value: string | null): number {
  if (value === null) return BACKTEST_DEFAULT_DAYS;
  const days = /^\d{1,3}$/.test(value) ? Number(value) : NaN;
  if (days >= 1 && days <= BACKTEST_MAX_DAYS) return days;
  const expected = `a whole number of days from 1 to ${BACKTEST_MAX_DAYS}`;
  const received = /^\d+$/.test(value) ? value : `text of ${[...value].length} characters`;
  throw invalid('invalid_days', `The backtest period is not valid: days must be ${expected}.`, [
    { field: 'days', code: 'out_of_range', expected, received, message: `"days" must be ${expected}; it is ${received}.` },
  ]);
}

/**
 * `POST /api/v1/admin/policies/plan`: what publishing the document would change, in words, and the
 * backtest of the changed actions (lib/policy/backtest.ts). The document is validated exactly as
 * `PUT` validates it (the note may be left out) and, like `PUT`, an entry edited from a version
 * that is no longer the newest is 409 `stale_policy`. Writes nothing.
 */
export async function planPolicies(db: Database, tenantId: string, input: unknown, days: number, now = new Date()): Promise<PolicyPlan> {
  const { entries } = parseDocument(input, policyDraftSchema);
  const changes: PlannedChange[] = [];
  const pairs = new Map<string, { current: LoadedPolicy; draft: LoadedPolicy }>();
  for (const entry of entries) {
    const action = findAction(entry.action)!;
    const stored = await newestPolicy(db, tenantId, action);
    if (stored.version !== entry.version) throw stalePolicy(entry.action, stored.version, entry.version);
    const draft = { rules: entry.rules, expiryHours: entry.expiryHours };
    if (samePolicy(stored, draft)) continue;
    // Money is stored in minor units of whatever currency a proposal names: said so, since no one currency is the bound's.
    const money = new Set((action.editing?.money ?? []).map((each) => each.field));
    const format = (field: string, value: number) => (money.has(field) ? `${value} minor units` : String(value));
    const words = changesInWords({ rules: storedRules(stored.rules), expiryHours: stored.expiryHours }, draft, format);
    changes.push({ action: entry.action, version: stored.version, nextVersion: stored.version + 1, words });
    pairs.set(entry.action, { current: await loadPolicy(db, tenantId, action), draft: { version: stored.version + 1, ...draft } });
  }
  return { changes, backtest: await backtest(db, tenantId, pairs, days, now) };
}
