'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type FieldProblem, OperatorApiError, valueOrThrow } from '@/lib/client/operator-api';
import { fetchPolicies, planPolicies, savePolicies } from '@/lib/client/policies-api';
import { CURRENCY_CODES } from '@/lib/money';
import type { PolicyPlan } from '@/lib/policy/plan';
import type { PolicyChange, PolicyView } from '@/lib/policy/requests';
import { changesInWords } from '@/lib/shared/policy-words';
import { ProblemText } from './notification-ui';
import { PolicyDiff } from './policy-diff';
import { PolicyPlanView } from './policy-plan';
import { PolicyPreview } from './policy-preview';
import {
  boundFormat,
  type CurrencyOf,
  draftOf,
  issuesUnder,
  newRuleDraft,
  type RuleDraft,
  RuleFields,
  retypeBounds,
  ruleOf,
} from './policy-rule';
import { Button } from './ui/button';
import { Input } from './ui/input';
import { Select } from './ui/select';
import { Textarea } from './ui/textarea';

export const POLICIES_KEY = ['admin', 'policies'] as const;

const numberOr = (text: string): number => (/^\d+$/.test(text.trim()) ? Number(text) : (text as unknown as number));

const NOTE_MAX = 500;

/** Field issues from a refusal, named as this form names them (the entry's prefix dropped). */
const formIssues = (error: Error): FieldProblem[] =>
  error instanceof OperatorApiError
    ? error.problem.issues.map((issue) => ({
        ...issue,
        field: issue.field.replace(/^policies\.0\./, ''),
        message: issue.message.replaceAll('"policies.0.', '"'),
      }))
    : [];

/**
 * An admin's editor of one action's ordered rules and expiry. Publishing comes after a plan of the
 * draft as it stands (the change in words and the backtest) and needs a change note; any edit
 * makes the plan old, and publishing waits for a new one.
 */
type EditorProps = {
  view: PolicyView;
  fields: string[];
  money: string[];
  currency: string;
  sampleArgs: Record<string, unknown>;
};

export function PolicyEditor({ view, fields, money, currency: initialCurrency, sampleArgs }: EditorProps) {
  const client = useQueryClient();
  const [currency, setCurrency] = useState(initialCurrency);
  const inCurrency =
    (code: string): CurrencyOf =>
    (field) =>
      money.includes(field) ? code : undefined;
  const currencyOf = inCurrency(currency);
  const [rules, setRules] = useState<RuleDraft[]>(() => view.rules.map((rule) => draftOf(rule, currencyOf)));
  const [expiry, setExpiry] = useState(String(view.expiryHours));
  const [baseVersion, setBaseVersion] = useState(view.version);
  const [saved, setSaved] = useState<PolicyChange | null>(null);
  const [issues, setIssues] = useState<FieldProblem[]>([]);
  const [note, setNote] = useState('');
  const [days, setDays] = useState('30');
  const [plan, setPlan] = useState<PolicyPlan | null>(null);
  const entry = () => ({
    action: view.action,
    version: baseVersion,
    rules: rules.map((draft) => ruleOf(draft, currencyOf)),
    expiryHours: numberOr(expiry),
  });
  const reset = (next: PolicyView) => {
    setRules(next.rules.map((rule) => draftOf(rule, currencyOf)));
    setExpiry(String(next.expiryHours));
    setBaseVersion(next.version);
    setIssues([]);
    setPlan(null);
  };
  const save = useMutation({
    mutationFn: async () => valueOrThrow(await savePolicies([entry()], note)),
    onSuccess: (result) => {
      const now = result.policies.find((each) => each.action === view.action);
      if (now) reset(now);
      setNote('');
      setSaved(result.saved.find((change) => change.action === view.action) ?? null);
      client.setQueryData(POLICIES_KEY, { policies: result.policies });
    },
    onError: (error) => {
      setSaved(null);
      setIssues(formIssues(error));
    },
  });
  const planning = useMutation({
    mutationFn: async () => valueOrThrow(await planPolicies([entry()], days)),
    onSuccess: (result) => {
      setPlan(result);
      setIssues([]);
    },
    onError: (error) => {
      setPlan(null);
      setIssues(formIssues(error));
    },
  });
  const reload = async () => {
    const result = await fetchPolicies();
    if (!result.ok) return;
    client.setQueryData(POLICIES_KEY, result.value);
    const now = result.value.policies.find((each) => each.action === view.action);
    if (now) reset(now);
    save.reset();
    planning.reset();
  };
  const failed = save.error ?? planning.error;
  const stale = failed instanceof OperatorApiError && failed.problem.code === 'stale_policy';
  /** Any edit: the last answer (diff, refusal, field issues) no longer describes the form. */
  const touched = () => {
    setSaved(null);
    setIssues([]);
    setPlan(null);
    if (save.isError) save.reset();
    if (planning.isError) planning.reset();
  };
  const edit = (next: RuleDraft[]) => {
    setRules(next);
    touched();
  };
  const move = (index: number, by: -1 | 1) => {
    const next = [...rules];
    [next[index], next[index + by]] = [next[index + by]!, next[index]!];
    edit(next);
  };
  const expiryIssues = issuesUnder(issues, 'expiryHours');
  const noteIssues = issuesUnder(issues, 'note');
  const daysIssues = issuesUnder(issues, 'days');
  const otherIssues = issues.filter(
    (issue) =>
      !issue.field.startsWith('rules.') &&
      !['expiryHours', 'note', 'days'].includes(issue.field) &&
      !issue.field.startsWith('sample.'),
  );
  const canPublish = plan !== null && plan.changes.length > 0;

  return (
    <form
      data-testid="policy-editor"
      aria-label={`${view.action} policy`}
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        if (canPublish) save.mutate();
        else planning.mutate();
      }}
    >
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Rules are checked in order; the first that matches decides. A proposal no rule matches is denied.
      </p>
      <ol className="space-y-3" data-testid="policy-rule-list">
        {rules.map((draft, index) => (
          <RuleFields
            key={draft.key}
            draft={draft}
            index={index}
            count={rules.length}
            fields={fields}
            currencyOf={currencyOf}
            earlier={rules.slice(0, index).map((each) => ruleOf(each, currencyOf))}
            issues={issuesUnder(issues, `rules.${index}`)}
            onChange={(next) => edit(rules.map((each) => (each.key === draft.key ? next : each)))}
            onMove={(by) => move(index, by)}
            onRemove={() => edit(rules.filter((each) => each.key !== draft.key))}
          />
        ))}
      </ol>
      <div className="flex flex-wrap items-end gap-4">
        <Button
          variant="secondary"
          data-testid="policy-add-rule"
          onClick={() => edit([...rules, newRuleDraft(rules, fields[0] ?? '')])}
        >
          Add a rule
        </Button>
        <label htmlFor={`expiry-${view.action}`} className="block text-sm font-medium">
          Proposals expire after (hours, 1–720)
          <Input
            id={`expiry-${view.action}`}
            data-testid="policy-expiry"
            inputMode="numeric"
            value={expiry}
            onChange={(e) => {
              setExpiry(e.target.value);
              touched();
            }}
            className="mt-1 w-32 font-mono"
          />
        </label>
        {money.length > 0 ? (
          <label htmlFor={`currency-${view.action}`} className="block text-sm font-medium">
            Money bounds typed in
            <Select
              id={`currency-${view.action}`}
              data-testid="policy-currency"
              value={currency}
              onChange={(e) => {
                setRules(retypeBounds(rules, currencyOf, inCurrency(e.target.value)));
                setCurrency(e.target.value);
                touched();
              }}
              className="mt-1 w-28 pr-8 font-mono"
            >
              {CURRENCY_CODES.map((code) => (
                <option key={code} value={code}>
                  {code}
                </option>
              ))}
            </Select>
          </label>
        ) : null}
      </div>
      {expiryIssues.length > 0 ? (
        <p role="alert" data-testid="expiry-error" className="text-sm text-red-700 dark:text-red-300">
          {expiryIssues.map((issue) => issue.message).join(' ')}
        </p>
      ) : null}
      <PolicyPreview
        action={view.action}
        rules={() => rules.map((draft) => ruleOf(draft, currencyOf))}
        expiryHours={() => numberOr(expiry)}
        sampleArgs={sampleArgs}
        onIssues={(found) => setIssues(found)}
      />
      {failed && issues.length > 0 && otherIssues.length === 0 ? (
        <p role="alert" data-testid="policy-error" className="text-sm text-red-700 dark:text-red-300">
          {save.error ? 'Not published' : 'Not planned'}: fix the fields marked above.
        </p>
      ) : (
        <ProblemText error={failed} testId="policy-error" />
      )}
      {stale ? (
        <Button variant="secondary" data-testid="policy-reload" onClick={() => void reload()}>
          Load the newest version (discards this draft)
        </Button>
      ) : null}
      {saved ? <PolicyDiff change={saved} /> : null}
      {save.isSuccess && !saved && !save.isPending ? (
        <p role="status" data-testid="policy-unchanged" className="text-sm">
          Nothing changed, so no new version was published.
        </p>
      ) : null}
      <div className="flex flex-wrap items-end gap-3">
        <label htmlFor={`days-${view.action}`} className="block text-sm font-medium">
          Backtest the last (days, 1–365)
          <Input
            id={`days-${view.action}`}
            data-testid="policy-plan-days"
            inputMode="numeric"
            value={days}
            onChange={(e) => {
              setDays(e.target.value);
              setPlan(null);
            }}
            className="mt-1 w-24 font-mono"
          />
        </label>
        <Button
          variant={canPublish ? 'secondary' : 'primary'}
          data-testid="policy-plan-run"
          disabled={planning.isPending}
          onClick={() => planning.mutate()}
        >
          {planning.isPending ? 'Planning…' : plan ? 'Plan again' : 'Plan: what would change'}
        </Button>
        <Button
          variant="secondary"
          data-testid="policy-discard"
          onClick={() => {
            reset(view);
            save.reset();
            planning.reset();
            setSaved(null);
          }}
        >
          Discard changes
        </Button>
      </div>
      {daysIssues.length > 0 ? (
        <p role="alert" data-testid="days-error" className="text-sm text-red-700 dark:text-red-300">
          {daysIssues.map((issue) => issue.message).join(' ')}
        </p>
      ) : null}
      {plan ? (
        <PolicyPlanView
          plan={plan}
          words={changesInWords(
            { rules: view.rules, expiryHours: view.expiryHours },
            { rules: entry().rules, expiryHours: numberOr(expiry) },
            boundFormat(currencyOf),
          )}
        />
      ) : null}
      {canPublish ? (
        <div className="space-y-2">
          <label htmlFor={`note-${view.action}`} className="block text-sm font-medium">
            Why this change? (1–{NOTE_MAX} characters, shown beside the version and in the audit trail)
            <Textarea
              id={`note-${view.action}`}
              data-testid="policy-note"
              rows={2}
              value={note}
              onChange={(e) => {
                setNote(e.target.value);
                if (save.isError) save.reset();
                setIssues([]);
              }}
              aria-describedby={`note-count-${view.action}`}
              className="mt-1"
            />
            <span
              id={`note-count-${view.action}`}
              className={
                'mt-1 block text-xs font-normal ' +
                ([...note].length > NOTE_MAX ? 'text-red-700 dark:text-red-300' : 'text-zinc-600 dark:text-zinc-400')
              }
            >
              {[...note].length}/{NOTE_MAX}
            </span>
          </label>
          {noteIssues.length > 0 ? (
            <p role="alert" data-testid="note-error" className="text-sm text-red-700 dark:text-red-300">
              {noteIssues.map((issue) => issue.message).join(' ')}
            </p>
          ) : null}
          <Button variant="primary" type="submit" data-testid="policy-save" disabled={save.isPending}>
            {save.isPending ? 'Publishing…' : `Publish as v${baseVersion + 1}`}
          </Button>
        </div>
      ) : null}
    </form>
  );
}
