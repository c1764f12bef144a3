'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { OperatorApiError, postRevision, valueOrThrow } from '@/lib/client/operator-api';

type FieldSchema = { type?: string; enum?: string[]; minimum?: number; maximum?: number; minLength?: number; maxLength?: number; pattern?: string };

/** Reads a field's text as the contract's type; anything else is sent as typed, for the gates to refuse. */
function valueFor(schema: FieldSchema, text: string): unknown {
  if (schema.type === 'integer' && /^-?\d+$/.test(text.trim())) return Number(text.trim());
  return text;
}

/** An edit form generated from the contract's JSON Schema, prefilled with the current arguments. */
export function RevisionForm({ proposalId, fields, args }: { proposalId: string; fields: Record<string, FieldSchema>; args: Record<string, unknown> }) {
  const router = useRouter();
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(Object.keys(fields).map((name) => [name, args[name] === undefined ? '' : String(args[name])])));
  const mutation = useMutation({
    mutationFn: async () => {
      const edited = Object.fromEntries(Object.entries(fields).filter(([name]) => values[name] !== '').map(([name, schema]) => [name, valueFor(schema, values[name] ?? '')]));
      return valueOrThrow(await postRevision(proposalId, { args: edited })).id;
    },
    onSuccess: (id) => router.push(`/proposals/${id}`),
  });
  const issues = mutation.error instanceof OperatorApiError ? mutation.error.problem.issues : [];
  // Issues about a field of the form are shown beside it; anything else is said above the button.
  const shownBeside = issues.length > 0 && issues.every((issue) => issue.field in fields);

  return (
    <form
      data-testid="revision-form"
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        mutation.mutate();
      }}
    >
      {Object.entries(fields).map(([name, schema]) => {
        const issue = issues.find((i) => i.field === name);
        return (
          <label key={name} className="block text-sm">
            <span className="font-mono">{name}</span>
            {schema.enum ? (
              <select data-testid={`revision-${name}`} value={values[name]} onChange={(e) => setValues({ ...values, [name]: e.target.value })} className="mt-1 block w-full rounded-md border border-zinc-300 bg-transparent px-3 py-2 dark:border-zinc-700">
                {schema.enum.map((option) => <option key={option} value={option}>{option}</option>)}
              </select>
            ) : (
              <input
                data-testid={`revision-${name}`}
                inputMode={schema.type === 'integer' ? 'numeric' : undefined}
                value={values[name]}
                maxLength={schema.maxLength}
                onChange={(e) => setValues({ ...values, [name]: e.target.value })}
                className="mt-1 block w-full rounded-md border border-zinc-300 bg-transparent px-3 py-2 font-mono dark:border-zinc-700"
              />
            )}
            <span className="text-xs text-zinc-500">
              {schema.type}
              {schema.minimum !== undefined ? ` ≥ ${schema.minimum}` : ''}
              {schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? ` ≤ ${schema.maximum}` : ''}
              {schema.maxLength !== undefined ? `, up to ${schema.maxLength} characters` : ''}
            </span>
            {issue ? <span className="block text-xs text-red-700 dark:text-red-300" data-testid={`revision-issue-${name}`}>{issue.message}</span> : null}
          </label>
        );
      })}
      {mutation.error && !shownBeside ? <p role="status" data-testid="revision-error" className="text-sm text-red-700 dark:text-red-300">{mutation.error.message}</p> : null}
      <p className="text-sm text-zinc-500">Saving creates a new revision that goes through every check again and replaces this proposal. Someone other than you must approve it.</p>
      <button type="submit" data-testid="revision-submit" disabled={mutation.isPending} className="rounded-md bg-zinc-900 px-4 py-2 font-medium text-white disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900">
        {mutation.isPending ? 'Checking…' : 'Create revision'}
      </button>
    </form>
  );
}
