'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { OperatorApiError, valueOrThrow } from '@/lib/client/operator-api';
import { previewPolicy } from '@/lib/client/policies-api';
import type { RoutingRule } from '@/lib/routing-rules';
import { outcomeInWords } from '@/lib/shared/policy-words';
import { CARD, ProblemText } from './notification-ui';
import { Button } from './ui/button';
import { Textarea } from './ui/textarea';

type Props = {
  action: string;
  rules: () => RoutingRule[];
  expiryHours: () => number;
  sampleArgs: Record<string, unknown>;
  onIssues(issues: OperatorApiError['problem']['issues']): void;
};

/** "What would happen": a sample proposal routed by the draft through the real router, before saving. */
export function PolicyPreview({ action, rules, expiryHours, sampleArgs, onIssues }: Props) {
  const [text, setText] = useState(() => JSON.stringify(sampleArgs, null, 2));
  const [local, setLocal] = useState<string | null>(null);
  const preview = useMutation({
    mutationFn: async (args: Record<string, unknown>) =>
      valueOrThrow(await previewPolicy({ action, rules: rules(), expiryHours: expiryHours(), sample: { args } })),
    onSuccess: () => onIssues([]),
    onError: (error) => onIssues(error instanceof OperatorApiError ? error.problem.issues : []),
  });
  const run = () => {
    let args: unknown;
    try {
      args = JSON.parse(text);
    } catch {
      setLocal('The sample arguments are not valid JSON.');
      return;
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      setLocal('The sample arguments must be a JSON object, like an agent’s "args".');
      return;
    }
    setLocal(null);
    preview.mutate(args as Record<string, unknown>);
  };
  const result = preview.data;
  const argsId = `preview-args-${action}`;
  return (
    <section aria-labelledby={`preview-heading-${action}`} data-testid="policy-preview" className={`space-y-2 ${CARD}`}>
      <h4 id={`preview-heading-${action}`} className="font-semibold">
        What would happen
      </h4>
      <label htmlFor={argsId} className="block text-sm font-medium">
        A sample proposal’s arguments (JSON)
        <Textarea
          id={argsId}
          data-testid="preview-args"
          rows={4}
          value={text}
          onChange={(e) => setText(e.target.value)}
          className="mt-1 font-mono"
          spellCheck={false}
        />
      </label>
      <Button variant="secondary" data-testid="preview-run" onClick={run} disabled={preview.isPending}>
        {preview.isPending ? 'Routing…' : 'Route this sample through the draft'}
      </Button>
      {local ? (
        <p role="alert" data-testid="preview-local-error" className="text-sm text-red-700 dark:text-red-300">
          {local}
        </p>
      ) : null}
      <ProblemText error={preview.error} testId="preview-error" />
      {result && !preview.isPending ? (
        <div
          role="status"
          data-testid="preview-result"
          data-outcome={result.routing.outcome}
          data-rule={result.routing.rule}
          className="space-y-1 text-sm"
        >
          <p className="font-medium">
            {result.rule ? `Rule ${result.rule.index + 1} (${result.rule.id}) matches` : 'No rule matches'} →{' '}
            {result.routing.rule === 'no-matching-rule' ? 'denied (no rule matched)' : outcomeInWords(result.routing)}
            {result.routing.outcome === 'needs_approval' ? `; it would wait up to ${result.expiryHours} h` : ''}.
          </p>
          {result.rule?.description ? (
            <p className="text-zinc-600 dark:text-zinc-400">“{result.rule.description}”</p>
          ) : null}
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            Resource: {result.resource}. As v{result.routing.policyVersion}.
            {result.routing.aggregate
              ? ` With ${result.routing.aggregate.priorCount} earlier proposal(s) on this resource in the last ` +
                `${result.routing.aggregate.windowHours} h, ${result.routing.aggregate.field} totals ` +
                `${result.routing.aggregate.total}.`
              : ''}
            {result.usesAggregates ? ' Aggregate bounds are summed over this tenant’s real proposals as of now.' : ''}
          </p>
        </div>
      ) : null}
    </section>
  );
}
