import { and, eq, gte, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';
import { tenantActions } from '@/lib/definitions/catalog';
import { daysParam } from '@/lib/input/days';
import { formatMinor, minorDigits } from '@/lib/money';
import { type BoundFormat, changesInWords, ruleWarnings } from '@/lib/shared/policy-words';
import { BACKTEST_DEFAULT_DAYS, BACKTEST_MAX_DAYS, type Backtest, backtest } from './backtest';
import { newestPolicy, samePolicy, storedRules } from './current';
import { policyDraftSchema } from './requests';
import { type LoadedPolicy, loadPolicy } from './routing';
import { actionNamed, parseDocument, stalePolicy } from './save';

/** One action the draft changes: the version it replaces, the one it would publish, and the change in sentences. */
export type PlannedChange = { action: string; version: number; nextVersion: number; words: string[] };

/** A rule of a changed action whose description or id names an amount its bounds no longer have. */
export type PlanWarning = { action: string; ruleId: string; message: string };

/** What `POST /api/v1/admin/policies/plan` answers. */
export type PolicyPlan = { changes: PlannedChange[]; warnings: PlanWarning[]; backtest: Backtest };

/** The currencies the action's proposals of the period name in `currencyField`, sorted. */
async function currenciesSeen(
  db: Database,
  tenantId: string,
  action: string,
  currencyField: string,
  since: Date,
): Promise<string[]> {
  const currency = sql<string | null>`${proposals.payload}->'args'->>${currencyField}`;
  const rows = await db
    .selectDistinct({ currency })
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.action, action), gte(proposals.createdAt, since)));
  return rows.flatMap((row) => (row.currency ? [row.currency] : [])).sort();
}

/** Money bound in `currency`'s major units beside the currencies named, and in minor units. */
const inMajor = (value: number, currency: string, named: string) =>
  `${formatMinor(value, currency)} ${named} (${value} minor units)`;

/** Currencies with 0, 2 and 3 decimals: the readings of a bound when no one currency is known. */
const DECIMALS_OF = ['JPY', 'EUR', 'BHD'];

/**
 * How the plan writes a bound: a money field's in major units when every proposal of the period
 * names currencies with one number of decimals ("50.00 EUR (5000 minor units)", "50.00 EUR/USD
 * (5000 minor units)"), else in minor units ("5000 minor units"), since no one currency is the
 * bound's. `otherReadings`: for the warnings, the bound in 0, 2 and 3 decimals when not known.
 */
export async function planBoundFormat(
  db: Database,
  tenantId: string,
  action: ActionModule,
  since: Date,
): Promise<{ format: BoundFormat; otherReadings: BoundFormat[] }> {
  const currencies = new Map<string, string[]>();
  for (const money of action.editing?.money ?? []) {
    const seen = await currenciesSeen(db, tenantId, action.name, money.currencyField, since);
    const digits = new Set(seen.map(safeDigits));
    if (seen.length > 0 && digits.size === 1 && !digits.has(null)) currencies.set(money.field, seen);
  }
  const money = new Set((action.editing?.money ?? []).map((each) => each.field));
  const format: BoundFormat = (field, value) => {
    const seen = currencies.get(field);
    if (seen && Number.isInteger(value)) return inMajor(value, seen[0]!, seen.join('/'));
    return money.has(field) ? `${value} minor units` : String(value);
  };
  const unknown = [...money].some((field) => !currencies.has(field));
  const otherReadings = unknown
    ? DECIMALS_OF.map(
        (code): BoundFormat =>
          (field, value) =>
            money.has(field) && Number.isInteger(value) ? inMajor(value, code, code) : format(field, value),
      )
    : [];
  return { format, otherReadings };
}

/** A currency's decimals, or null for a code this runtime does not know. */
function safeDigits(code: string): number | null {
  try {
    return minorDigits(code);
  } catch {
    return null;
  }
}

/** The `days` query parameter: absent is 30; otherwise digits for 1–365, else 422 `invalid_days` naming `days`. */
export function backtestDays(value: string | null): number {
  return daysParam(value, { fallback: BACKTEST_DEFAULT_DAYS, max: BACKTEST_MAX_DAYS, about: 'The backtest period' });
}

/**
 * `POST /api/v1/admin/policies/plan`: what publishing the document would change, in words, and the
 * backtest of the changed actions (lib/policy/backtest.ts). The document is validated exactly as
 * `PUT` validates it (the note may be left out) and, like `PUT`, an entry edited from a version
 * that is no longer the newest is 409 `stale_policy`. Writes nothing.
 */
export async function planPolicies(
  db: Database,
  tenantId: string,
  input: unknown,
  days: number,
  now = new Date(),
): Promise<PolicyPlan> {
  const actions = await tenantActions(db, tenantId);
  const { entries } = parseDocument(input, policyDraftSchema, actions);
  const changes: PlannedChange[] = [];
  const warnings: PlanWarning[] = [];
  const since = new Date(now.getTime() - days * 86_400_000);
  const pairs = new Map<string, { current: LoadedPolicy; draft: LoadedPolicy }>();
  for (const entry of entries) {
    const action = actionNamed(actions, entry.action);
    const stored = await newestPolicy(db, tenantId, action);
    if (stored.version !== entry.version) throw stalePolicy(entry.action, stored.version, entry.version);
    const draft = { rules: entry.rules, expiryHours: entry.expiryHours };
    if (samePolicy(stored, draft)) continue;
    const { format, otherReadings } = await planBoundFormat(db, tenantId, action, since);
    const words = changesInWords({ rules: storedRules(stored.rules), expiryHours: stored.expiryHours }, draft, format);
    changes.push({ action: entry.action, version: stored.version, nextVersion: stored.version + 1, words });
    warnings.push(
      ...ruleWarnings(draft.rules, format, otherReadings).map((warning) => ({ action: entry.action, ...warning })),
    );
    pairs.set(entry.action, {
      current: await loadPolicy(db, tenantId, action),
      draft: { version: stored.version + 1, ...draft },
    });
  }
  return { changes, warnings, backtest: await backtest(db, tenantId, pairs, days, now) };
}
