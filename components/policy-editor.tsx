'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { OperatorApiError, valueOrThrow, type FieldProblem } from '@/lib/client/operator-api';
import { fetchPolicies, savePolicies } from '@/lib/client/policies-api';
import type { PolicyChange, PolicyView } from '@/lib/policy/requests';
import { INPUT, PRIMARY_BUTTON, ProblemText, SECONDARY_BUTTON } from './notification-ui';
import { PolicyDiff } from './policy-diff';
import { PolicyPreview } from './policy-preview';
import { draftOf, issuesUnder, newRuleDraft, ruleOf, RuleFields, type RuleDraft } from './policy-rule';

export const POLICIES_KEY = ['admin', 'policies'] as const;

const numberOr = (text: string): number => (/^\d+$/.test(text.trim()) ? Number(text) : (text as unknown as number));

/** An admin's editor of one action's ordered rules and expiry; saving publishes the next version. */
export function PolicyEditor({ view, fields, sampleArgs }: { view: PolicyView; fields: string[]; sampleArgs: Record<string, unknown> }) {
  const client = useQueryClient();
  const [rules, setRules] = useState<RuleDraft[]>(() => view.rules.map(draftOf));
  const [expiry, setExpiry] = useState(String(view.expiryHours));
  const [baseVersion, setBaseVersion] = useState(view.version);
  const [saved, setSaved] = useState<PolicyChange | null>(null);
  const [issues, setIssues] = useState<FieldProblem[]>([]);
  const entry = () => ({ action: view.action, version: baseVersion, rules: rules.map(ruleOf), expiryHours: numberOr(expiry) });
  const reset = (next: PolicyView) => {
    setRules(next.rules.map(draftOf));
    setExpiry(String(next.expiryHours));
    setBaseVersion(next.version);
    setIssues([]);
  };
  const save = useMutation({
    mutationFn: async () => valueOrThrow(await savePolicies([entry()])),
    onSuccess: (result) => {
      const now = result.policies.find((each) => each.action === view.action);
      if (now) reset(now);
      setSaved(result.saved.find((change) => change.action === view.action) ?? null);
      client.setQueryData(POLICIES_KEY, { policies: result.policies });
    },
    onError: (error) => {
      setSaved(null);
      setIssues(error instanceof OperatorApiError ? error.problem.issues.map((issue) => ({ ...issue, field: issue.field.replace(/^policies\.0\./, ''), message: issue.message.replaceAll('"policies.0.', '"') })) : []);
    },
  });
  const reload = async () => {
    const result = await fetchPolicies();
    if (!result.ok) return;
    client.setQueryData(POLICIES_KEY, result.value);
    const now = result.value.policies.find((each) => each.action === view.action);
    if (now) reset(now);
    save.reset();
  };
  const stale = save.error instanceof OperatorApiError && save.error.problem.code === 'stale_policy';
  /** Any edit: the last answer (diff, refusal, field issues) no longer describes the form. */
  const touched = () => {
    setSaved(null);
    setIssues([]);
    if (save.isError) save.reset();
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
  const otherIssues = issues.filter((issue) => !issue.field.startsWith('rules.') && issue.field !== 'expiryHours' && !issue.field.startsWith('sample.'));

  return (
    <form
      data-testid="policy-editor"
      aria-label={`${view.action} policy`}
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <p className="text-sm text-zinc-600 dark:text-zinc-400">Rules are checked in order; the first that matches decides. A proposal no rule matches is denied.</p>
      <ol className="space-y-3" data-testid="policy-rule-list">
        {rules.map((draft, index) => (
          <RuleFields
            key={draft.key}
            draft={draft}
            index={index}
            count={rules.length}
            fields={fields}
            issues={issuesUnder(issues, `rules.${index}`)}
            onChange={(next) => edit(rules.map((each) => (each.key === draft.key ? next : each)))}
            onMove={(by) => move(index, by)}
            onRemove={() => edit(rules.filter((each) => each.key !== draft.key))}
          />
        ))}
      </ol>
      <div className="flex flex-wrap items-end gap-4">
        <button type="button" data-testid="policy-add-rule" onClick={() => edit([...rules, newRuleDraft(rules, fields[0] ?? '')])} className={SECONDARY_BUTTON}>Add a rule</button>
        <label htmlFor={`expiry-${view.action}`} className="block text-sm font-medium">
          Proposals expire after (hours, 1–720)
          <input id={`expiry-${view.action}`} data-testid="policy-expiry" inputMode="numeric" value={expiry} onChange={(e) => { setExpiry(e.target.value); touched(); }} className={`${INPUT} w-32 font-mono`} />
        </label>
      </div>
      {expiryIssues.length > 0 ? <p role="alert" data-testid="expiry-error" className="text-sm text-red-700 dark:text-red-300">{expiryIssues.map((issue) => issue.message).join(' ')}</p> : null}
      <PolicyPreview action={view.action} rules={() => rules.map(ruleOf)} expiryHours={() => numberOr(expiry)} sampleArgs={sampleArgs} onIssues={(found) => setIssues(found)} />
      {save.error && issues.length > 0 && otherIssues.length === 0 ? (
        <p role="alert" data-testid="policy-error" className="text-sm text-red-700 dark:text-red-300">Not saved: fix the fields marked above.</p>
      ) : (
        <ProblemText error={save.error} testId="policy-error" />
      )}
      {stale ? (
        <button type="button" data-testid="policy-reload" className={SECONDARY_BUTTON} onClick={() => void reload()}>Load the newest version (discards this draft)</button>
      ) : null}
      {saved ? <PolicyDiff change={saved} /> : null}
      {save.isSuccess && !saved && !save.isPending ? <p role="status" data-testid="policy-unchanged" className="text-sm">Nothing changed, so no new version was published.</p> : null}
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" data-testid="policy-save" disabled={save.isPending} className={PRIMARY_BUTTON}>{save.isPending ? 'Saving…' : `Save as v${baseVersion + 1}`}</button>
        <button type="button" data-testid="policy-discard" className={SECONDARY_BUTTON} onClick={() => { reset(view); save.reset(); setSaved(null); }}>Discard changes</button>
      </div>
    </form>
  );
}
