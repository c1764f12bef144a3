'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { type PublishRefusal, planDefinition, publishDefinition } from '@/lib/client/actions-api';
import { valueOrThrow } from '@/lib/client/operator-api';
import type { DefinitionPlanAnswer, DefinitionPublished } from '@/lib/definitions/answers';
import { DefinitionPlanView } from './action-plan';
import { ProblemText } from './notification-ui';
import { Button } from './ui/button';
import { Textarea } from './ui/textarea';

const NOTE_MAX = 500;

type Planned = { plan: Extract<DefinitionPlanAnswer, { valid: true }>; document: unknown };

class PublishError extends Error {
  constructor(readonly refusal: PublishRefusal) {
    super(refusal.message);
  }
}

/** The draft as JSON, or what is wrong with it as JSON (nothing is sent then). */
function parsed(text: string): { ok: true; document: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, document: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `The draft is not JSON: ${(error as Error).message}` };
  }
}

/** After a refused publish: what to do next, in words, with the document's problems by path. */
function Refused({ refusal }: { refusal: PublishRefusal }) {
  const stale = refusal.code === 'stale_definition';
  return (
    <div
      role="alert"
      data-testid="definition-publish-error"
      data-code={refusal.code}
      className={
        'space-y-1 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 ' +
        'dark:bg-red-950 dark:text-red-200'
      }
    >
      <p className="font-medium">
        {stale
          ? `Not published: someone published v${refusal.currentVersion ?? '?'} meanwhile. ` +
            'Plan again to see the change against it.'
          : `Not published: ${refusal.message}`}
      </p>
      {refusal.problems.length > 0 || refusal.issues.length > 0 ? (
        <ul className="list-disc space-y-0.5 pl-5">
          {refusal.problems.map((problem) => (
            <li key={`${problem.path}:${problem.message}`} className="break-words">
              <code className="font-mono text-xs">{problem.path}</code>: {problem.message}
            </li>
          ))}
          {refusal.issues.map((issue) => (
            <li key={`${issue.field}:${issue.code}`} className="break-words">
              <code className="font-mono text-xs">{issue.field}</code>: {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * An admin's draft of a definition: the document as JSON, planned first (problems by path, or the
 * change with what breaks agents), then published as the next version with a note, against the
 * version the plan saw. Any edit makes the plan old and hides Publish until the next plan.
 */
export function DefinitionEditor({ initial, label }: { initial: string; label: string }) {
  const router = useRouter();
  const id = useId();
  const [text, setText] = useState(initial);
  const [note, setNote] = useState('');
  const [planned, setPlanned] = useState<Planned | null>(null);
  const [published, setPublished] = useState<DefinitionPublished | null>(null);
  const [local, setLocal] = useState<string | null>(null);
  const planning = useMutation({
    mutationFn: async (document: unknown) => ({ plan: valueOrThrow(await planDefinition(document)), document }),
    onSuccess: ({ plan, document }) => setPlanned(plan.valid && !plan.unchanged ? { plan, document } : null),
  });
  const publishing = useMutation({
    mutationFn: async (current: Planned) => {
      const result = await publishDefinition({
        document: current.document,
        note,
        baseVersion: current.plan.currentVersion ?? 0,
      });
      if (!result.ok) throw new PublishError(result.problem);
      return result.value;
    },
    onSuccess: (answer) => {
      setPublished(answer);
      setPlanned(null);
      planning.reset();
      setNote('');
      router.refresh();
    },
    onError: (error) => {
      // Someone else published: this plan no longer says what publishing would change.
      if (error instanceof PublishError && error.refusal.code === 'stale_definition') setPlanned(null);
    },
  });
  const plan = () => {
    const draft = parsed(text);
    setPublished(null);
    publishing.reset();
    if (!draft.ok) {
      setLocal(draft.message);
      planning.reset();
      setPlanned(null);
      return;
    }
    setLocal(null);
    planning.mutate(draft.document);
  };
  const edit = (next: string) => {
    setText(next);
    setLocal(null);
    setPlanned(null);
    setPublished(null);
    planning.reset();
    publishing.reset();
  };
  const refusal = publishing.error instanceof PublishError ? publishing.error.refusal : null;
  const noteLeft = NOTE_MAX - note.length;

  return (
    <div className="space-y-3">
      <label htmlFor={`${id}-text`} className="block text-sm font-medium">
        {label}
        <span id={`${id}-hint`} className="block text-xs font-normal text-zinc-600 dark:text-zinc-400">
          The definition as JSON (docs/actions.md). Plan it first (Ctrl+Enter in the field): nothing is published until
          you publish the plan.
        </span>
      </label>
      <Textarea
        id={`${id}-text`}
        data-testid="definition-text"
        aria-describedby={`${id}-hint`}
        rows={14}
        spellCheck={false}
        value={text}
        onChange={(event) => edit(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            plan();
          }
        }}
        className="resize-y font-mono text-xs"
      />
      <div className="flex flex-wrap items-center gap-2">
        <Button
          variant={planned ? 'secondary' : 'primary'}
          data-testid="definition-plan-run"
          disabled={planning.isPending}
          onClick={plan}
        >
          {planning.isPending ? 'Planning…' : planning.data ? 'Plan again' : 'Plan: what would change'}
        </Button>
        <Button variant="ghost" data-testid="definition-reset" onClick={() => edit(initial)}>
          Discard the draft
        </Button>
      </div>
      {local ? (
        <p role="alert" data-testid="definition-local-error" className="text-sm text-red-700 dark:text-red-300">
          {local}
        </p>
      ) : null}
      <ProblemText error={planning.error} testId="definition-plan-error" />
      {planning.data ? <DefinitionPlanView plan={planning.data.plan} /> : null}
      {planned ? (
        <form
          className="space-y-2"
          data-testid="definition-publish-form"
          onSubmit={(event) => {
            event.preventDefault();
            publishing.mutate(planned);
          }}
        >
          <label htmlFor={`${id}-note`} className="block text-sm font-medium">
            Why publish it? (required, shown beside the version and in the audit trail)
            <Textarea
              id={`${id}-note`}
              data-testid="definition-note"
              rows={2}
              required
              maxLength={NOTE_MAX}
              value={note}
              aria-describedby={`${id}-note-count`}
              onChange={(event) => {
                setNote(event.target.value);
                if (publishing.isError) publishing.reset();
              }}
              className="mt-1"
            />
          </label>
          <span id={`${id}-note-count`} className="block text-xs text-zinc-600 dark:text-zinc-400">
            {noteLeft} characters left
          </span>
          <Button
            variant="primary"
            type="submit"
            data-testid="definition-publish"
            disabled={publishing.isPending || note.trim().length === 0}
          >
            {publishing.isPending
              ? 'Publishing…'
              : `Publish ${planned.plan.name} v${(planned.plan.currentVersion ?? 0) + 1}`}
          </Button>
        </form>
      ) : null}
      {refusal ? <Refused refusal={refusal} /> : null}
      {published ? (
        <p role="status" data-testid="definition-published" className="text-sm text-green-800 dark:text-green-300">
          {published.unchanged
            ? `Nothing changed: ${published.name} stays at v${published.version}.`
            : `Published ${published.name} v${published.version}.`}
        </p>
      ) : null}
    </div>
  );
}
