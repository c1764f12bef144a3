'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { putEvidenceResolver } from '@/lib/client/actions-api';
import { OperatorApiError, valueOrThrow } from '@/lib/client/operator-api';
import { isSessionEnded, markSessionEnded } from '@/lib/client/session';
import { ProblemText } from './notification-ui';
import { Button } from './ui/button';
import { Input } from './ui/input';

/**
 * The Contracts page's evidence resolver (docs/executors.md): where the evidence refs agents cite
 * are read. Everyone sees it; an admin sets or clears it, and the server checks the URL (http(s),
 * an origin the operator allows).
 */
export function EvidenceResolverSetting({ resolver, canEdit }: { resolver: string | null; canEdit: boolean }) {
  const router = useRouter();
  const [draft, setDraft] = useState(resolver ?? '');
  const save = useMutation({
    mutationFn: async (next: string | null) => valueOrThrow(await putEvidenceResolver(next)),
    onSuccess: (answer) => {
      setDraft(answer.resolver ?? '');
      router.refresh();
    },
    onError: (error) => {
      if (error instanceof OperatorApiError && isSessionEnded(error.problem)) markSessionEnded();
    },
  });
  // The answer holds until the refreshed page brings the same value from the server.
  const current = save.data ? save.data.resolver : resolver;
  const where = current ? (
    <code className="font-mono break-all" data-testid="evidence-resolver-url">
      {current}
    </code>
  ) : (
    <span data-testid="evidence-resolver-url">the systems of record</span>
  );

  return (
    <div className="space-y-2 text-sm" data-testid="evidence-resolver">
      <p>
        The evidence refs agents cite are read from {where}.
        {canEdit ? ' Set your own service to answer for them; clear it to read the systems of record again.' : ''}
      </p>
      {canEdit ? (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate(draft.trim() === '' ? null : draft);
          }}
        >
          <label className="min-w-0 flex-1 basis-64 space-y-1">
            <span className="block font-medium">Evidence resolver URL</span>
            <Input
              type="url"
              inputMode="url"
              spellCheck={false}
              placeholder="https://evidence.example.com/resolve"
              value={draft}
              data-testid="evidence-resolver-input"
              onChange={(event) => {
                save.reset();
                setDraft(event.target.value);
              }}
            />
          </label>
          <Button type="submit" variant="primary" disabled={save.isPending} data-testid="evidence-resolver-save">
            Save
          </Button>
          {current ? (
            <Button
              type="button"
              variant="secondary"
              disabled={save.isPending}
              data-testid="evidence-resolver-clear"
              onClick={() => save.mutate(null)}
            >
              Use the systems of record
            </Button>
          ) : null}
        </form>
      ) : null}
      <ProblemText error={save.error} testId="evidence-resolver-error" />
      {save.isSuccess ? (
        <p role="status" className="text-zinc-600 dark:text-zinc-400" data-testid="evidence-resolver-saved">
          {save.data.changed ? 'Saved.' : 'Unchanged: it already was so.'}
        </p>
      ) : null}
    </div>
  );
}
