'use client';

import type { FieldProblem } from '@/lib/client/operator-api';
import { formatMinor, parseMoney } from '@/lib/money';
import type { RoutingRule } from '@/lib/routing-rules';
import {
  type BoundFormat,
  describeRule,
  descriptionMismatch,
  idMismatch,
  ruleInWords,
} from '@/lib/shared/policy-words';
import { Button } from './ui/button';
import { Input } from './ui/input';
import { Select } from './ui/select';

/**
 * The currency a money field's bound is typed in (major units, parsed exactly as the revision
 * form parses money), or undefined for a plain number. The stored bound stays in minor units and
 * compares the minor units of every currency alike.
 */
export type CurrencyOf = (field: string) => string | undefined;

/** A bound as a person reads it: "50.00 EUR" for a money field, the number otherwise. */
export const boundFormat =
  (currencyOf: CurrencyOf): BoundFormat =>
  (field, value) => {
    const currency = currencyOf(field);
    return currency && Number.isInteger(value) ? `${formatMinor(value, currency)} ${currency}` : String(value);
  };

/**
 * One rule as the form holds it: every number as typed, so a bad entry reaches the server and comes back as that
 * field's issue.
 */
export type RuleDraft = {
  key: number;
  id: string;
  description: string;
  condition: 'always' | 'above' | 'below' | 'aggregate';
  field: string;
  bound: string;
  windowHours: string;
  outcome: RoutingRule['outcome'];
  approvals: string;
  role: RoutingRule['role'];
  /** Every approval under the rule must be signed with a passkey. */
  passkey: boolean;
};

let nextKey = 0;

export function draftOf(rule: RoutingRule, currencyOf: CurrencyOf = () => undefined): RuleDraft {
  const when = rule.when;
  const value = when?.below ?? when?.above;
  const currency = when ? currencyOf(when.field) : undefined;
  const condition = !when ? 'always' : when.below !== undefined ? 'below' : when.aggregate ? 'aggregate' : 'above';
  return {
    key: nextKey++,
    id: rule.id,
    description: rule.description,
    condition,
    field: when?.field ?? '',
    bound:
      value === undefined ? '' : currency && Number.isInteger(value) ? formatMinor(value, currency) : String(value),
    windowHours: String(when?.aggregate?.windowHours ?? 24),
    outcome: rule.outcome,
    approvals: String(rule.approvals),
    role: rule.role,
    passkey: rule.passkey === true,
  };
}

export function newRuleDraft(existing: RuleDraft[], field: string): RuleDraft {
  let n = existing.length + 1;
  while (existing.some((rule) => rule.id === `rule-${n}`)) n++;
  return {
    ...draftOf({
      id: `rule-${n}`,
      description: '',
      when: null,
      outcome: 'needs_approval',
      approvals: 1,
      role: 'approver',
    }),
    field,
  };
}

/** A number as typed, or the text itself (the server then names the field that is not a number). */
const numberOr = (text: string): number =>
  text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : (text as unknown as number);

/** A money bound typed in major units as minor units, or why it cannot be read (the revision form's parser). */
export function moneyBound(draft: RuleDraft, currencyOf: CurrencyOf): ReturnType<typeof parseMoney> | undefined {
  const currency = draft.condition === 'always' ? undefined : currencyOf(draft.field);
  return currency ? parseMoney(draft.bound, currency) : undefined;
}

/** Re-types every money bound from one currency's decimals to another's (the stored minor units stay). */
export function retypeBounds(drafts: RuleDraft[], from: CurrencyOf, to: CurrencyOf): RuleDraft[] {
  return drafts.map((draft) => {
    const parsed = moneyBound(draft, from);
    const currency = to(draft.field);
    return parsed?.ok && currency ? { ...draft, bound: formatMinor(parsed.minor, currency) } : draft;
  });
}

export function ruleOf(draft: RuleDraft, currencyOf: CurrencyOf = () => undefined): RoutingRule {
  const base = {
    id: draft.id.trim(),
    description: draft.description,
    outcome: draft.outcome,
    role: draft.role,
    ...(draft.passkey && draft.outcome === 'needs_approval' ? { passkey: true as const } : {}),
  };
  const approvals = draft.outcome === 'needs_approval' ? numberOr(draft.approvals) : 0;
  if (draft.condition === 'always') return { ...base, approvals, when: null };
  const money = moneyBound(draft, currencyOf);
  // Unreadable money goes as typed: the server names the field, and the form says why beside it.
  const bound = money ? (money.ok ? money.minor : (draft.bound as unknown as number)) : numberOr(draft.bound);
  const when =
    draft.condition === 'below'
      ? { field: draft.field, below: bound }
      : {
          field: draft.field,
          above: bound,
          ...(draft.condition === 'aggregate' ? { aggregate: { windowHours: numberOr(draft.windowHours) } } : {}),
        };
  return { ...base, approvals, when };
}

/** Issues whose field starts with `prefix`, with the rest of the field name. */
export function issuesUnder(issues: FieldProblem[], prefix: string): FieldProblem[] {
  return issues
    .filter((issue) => issue.field === prefix || issue.field.startsWith(`${prefix}.`))
    .map((issue) => ({ ...issue, field: issue.field.slice(prefix.length + 1) || '(rule)' }));
}

type RuleFieldsProps = {
  draft: RuleDraft;
  index: number;
  count: number;
  fields: string[];
  currencyOf: CurrencyOf;
  /** The rules before this one as they stand: a rule with no bound is described by what they leave. */
  earlier: RoutingRule[];
  issues: FieldProblem[];
  onChange(next: RuleDraft): void;
  onMove(by: -1 | 1): void;
  onRemove(): void;
};

/** One ordered rule: condition → outcome, its description and id, and buttons to move or remove it. */
export function RuleFields({
  draft,
  index,
  count,
  fields,
  currencyOf,
  earlier,
  issues,
  onChange,
  onMove,
  onRemove,
}: RuleFieldsProps) {
  const id = (name: string) => `rule-${draft.key}-${name}`;
  const set = (patch: Partial<RuleDraft>) => onChange({ ...draft, ...patch });
  const label = `Rule ${index + 1}`;
  const currency = draft.condition === 'always' ? undefined : currencyOf(draft.field);
  const money = moneyBound(draft, currencyOf);
  const rule = ruleOf(draft, currencyOf);
  const readable = money === undefined || money.ok;
  const generated = readable ? ruleInWords(rule, boundFormat(currencyOf)) : null;
  const described = readable ? describeRule(rule, boundFormat(currencyOf), earlier) : null;
  const mismatch = readable ? descriptionMismatch(rule, boundFormat(currencyOf), earlier) : null;
  const idWarning = readable ? idMismatch(rule, boundFormat(currencyOf), earlier) : null;
  return (
    <li
      data-testid="policy-rule"
      data-index={index}
      data-rule-id={draft.id}
      className="space-y-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-800"
      aria-label={label}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="text-sm font-semibold">
          {label}
          {index === 0 ? ' · checked first' : ''}
        </span>
        <div className="flex gap-1">
          <Button
            variant="secondary"
            data-testid="rule-up"
            aria-label={`Move ${label.toLowerCase()} up`}
            disabled={index === 0}
            onClick={() => onMove(-1)}
          >
            ↑
          </Button>
          <Button
            variant="secondary"
            data-testid="rule-down"
            aria-label={`Move ${label.toLowerCase()} down`}
            disabled={index === count - 1}
            onClick={() => onMove(1)}
          >
            ↓
          </Button>
          <Button
            variant="secondary"
            data-testid="rule-remove"
            aria-label={`Remove ${label.toLowerCase()}`}
            onClick={onRemove}
          >
            Remove
          </Button>
        </div>
      </div>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <label htmlFor={id('condition')} className="block text-sm font-medium">
          When
          <Select
            id={id('condition')}
            data-testid="rule-condition"
            value={draft.condition}
            onChange={(e) =>
              set({ condition: e.target.value as RuleDraft['condition'], field: draft.field || fields[0] || '' })
            }
            className="mt-1 pr-8"
          >
            <option value="always">always</option>
            <option value="above">field above</option>
            <option value="below">field below</option>
            <option value="aggregate">sum per resource above</option>
          </Select>
        </label>
        {draft.condition !== 'always' ? (
          <>
            <label htmlFor={id('field')} className="block text-sm font-medium">
              Field
              <Select
                id={id('field')}
                data-testid="rule-field"
                value={draft.field}
                onChange={(e) => set({ field: e.target.value })}
                className="mt-1 pr-8 font-mono"
              >
                {[...new Set([...fields, draft.field].filter(Boolean))].map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </Select>
            </label>
            <label htmlFor={id('bound')} className="block text-sm font-medium">
              {draft.condition === 'below' ? 'Below' : 'Above'}
              <span className="mt-1 flex items-center gap-2">
                <Input
                  id={id('bound')}
                  data-testid="rule-bound"
                  inputMode="decimal"
                  value={draft.bound}
                  onChange={(e) => set({ bound: e.target.value })}
                  aria-describedby={currency ? id('bound-hint') : undefined}
                  className="font-mono"
                />
                {currency ? (
                  <span data-testid="rule-bound-currency" className="font-mono font-medium">
                    {currency}
                  </span>
                ) : null}
              </span>
              {money ? (
                <span
                  id={id('bound-hint')}
                  data-testid={money.ok ? 'rule-bound-minor' : 'rule-bound-error'}
                  role={money.ok ? undefined : 'alert'}
                  className={
                    'mt-1 block text-xs font-normal ' +
                    (money.ok ? 'text-zinc-600 dark:text-zinc-400' : 'text-red-700 dark:text-red-300')
                  }
                >
                  {money.ok ? `= ${money.minor} minor units, compared in every currency` : money.message}
                </span>
              ) : null}
            </label>
          </>
        ) : null}
        {draft.condition === 'aggregate' ? (
          <label htmlFor={id('window')} className="block text-sm font-medium">
            Window (hours)
            <Input
              id={id('window')}
              data-testid="rule-window"
              inputMode="numeric"
              value={draft.windowHours}
              onChange={(e) => set({ windowHours: e.target.value })}
              className="mt-1 font-mono"
            />
          </label>
        ) : null}
      </div>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <label htmlFor={id('outcome')} className="block text-sm font-medium">
          Then
          <Select
            id={id('outcome')}
            data-testid="rule-outcome"
            value={draft.outcome}
            onChange={(e) =>
              set({
                outcome: e.target.value as RuleDraft['outcome'],
                approvals:
                  e.target.value === 'needs_approval' ? (draft.approvals === '0' ? '1' : draft.approvals) : '0',
              })
            }
            className="mt-1 pr-8"
          >
            <option value="needs_approval">needs approval</option>
            <option value="auto_approve">auto-approve</option>
            <option value="deny">deny</option>
          </Select>
        </label>
        {draft.outcome === 'needs_approval' ? (
          <>
            <label htmlFor={id('approvals')} className="block text-sm font-medium">
              Distinct approvers (1–5)
              <Input
                id={id('approvals')}
                data-testid="rule-approvals"
                inputMode="numeric"
                value={draft.approvals}
                onChange={(e) => set({ approvals: e.target.value })}
                className="mt-1 font-mono"
              />
            </label>
            <label htmlFor={id('role')} className="block text-sm font-medium">
              Of role
              <Select
                id={id('role')}
                data-testid="rule-role"
                value={draft.role}
                onChange={(e) => set({ role: e.target.value as RuleDraft['role'] })}
                className="mt-1 pr-8"
              >
                <option value="approver">approver (or admin)</option>
                <option value="admin">admin</option>
              </Select>
            </label>
            <label className="flex items-center gap-2 text-sm font-medium">
              <input
                type="checkbox"
                data-testid="rule-passkey"
                checked={draft.passkey}
                onChange={(e) => set({ passkey: e.target.checked })}
              />
              Each approval signed with a passkey
            </label>
          </>
        ) : null}
        <label htmlFor={id('id')} className="block text-sm font-medium">
          Rule id
          <Input
            id={id('id')}
            data-testid="rule-id"
            value={draft.id}
            onChange={(e) => set({ id: e.target.value })}
            className="mt-1 font-mono"
            aria-describedby={id('id-hint')}
          />
          <span id={id('id-hint')} className="mt-1 block text-xs font-normal text-zinc-600 dark:text-zinc-400">
            Shown on proposals it routes.
          </span>
          {idWarning ? (
            <span
              data-testid="rule-id-mismatch"
              className="mt-1 block text-xs font-normal text-amber-800 dark:text-amber-300"
            >
              ⚠ {idWarning}
            </span>
          ) : null}
        </label>
      </div>
      <label htmlFor={id('description')} className="block text-sm font-medium">
        Description
        <Input
          id={id('description')}
          data-testid="rule-description"
          value={draft.description}
          onChange={(e) => set({ description: e.target.value })}
          className="mt-1"
          aria-describedby={id('terms')}
        />
      </label>
      <div id={id('terms')} className="space-y-1 text-xs">
        {generated ? (
          <p data-testid="rule-terms" className="text-zinc-600 dark:text-zinc-400">
            From its terms: {generated}
          </p>
        ) : null}
        {mismatch ? (
          <p role="alert" data-testid="rule-description-mismatch" className="text-amber-800 dark:text-amber-300">
            ⚠ {mismatch}
          </p>
        ) : null}
        {described && (mismatch || draft.description === '') ? (
          <Button variant="secondary" data-testid="rule-describe" onClick={() => set({ description: described })}>
            Describe it as “{described}”
          </Button>
        ) : null}
      </div>
      {issues.length > 0 ? (
        <ul
          role="alert"
          data-testid="rule-error"
          className="list-disc space-y-0.5 pl-5 text-sm text-red-700 dark:text-red-300"
        >
          {issues.map((issue) => (
            <li key={`${issue.field}:${issue.code}`}>
              <span className="font-mono">{issue.field}</span>: {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}
