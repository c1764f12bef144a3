'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { OperatorApiError, postRevision, valueOrThrow } from '@/lib/client/operator-api';
import { REVISION_REASON_MAX } from '@/lib/decisions/requests';
import type { EditingView, MoneyFieldView } from '@/lib/decisions/revision-view';
import { formatMinor, parseMoney } from '@/lib/money';
import { PayloadText } from './payload-text';
import { Button } from './ui/button';
import { Input } from './ui/input';
import { Select } from './ui/select';
import { Textarea } from './ui/textarea';

type FieldSchema = {
  type?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
};

/** The edited arguments, or the first problem per field the form can see before sending anything. */
type Built = { ok: true; args: Record<string, unknown> } | { ok: false; problems: Record<string, string> };

/** Reads a field's text as the contract's type; anything else is sent as typed, for the gates to refuse. */
function valueFor(schema: FieldSchema, text: string): unknown {
  if (schema.type === 'integer' && /^-?\d+$/.test(text.trim())) return Number(text.trim());
  return text;
}

function build(
  fields: Record<string, FieldSchema>,
  args: Record<string, unknown>,
  values: Record<string, string>,
  editing: EditingView,
): Built {
  const edited: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const [name, schema] of Object.entries(fields)) {
    if (editing.locked.includes(name)) {
      if (args[name] !== undefined) edited[name] = args[name];
      continue;
    }
    const text = values[name] ?? '';
    const money = editing.money.find((m) => m.field === name);
    if (money) {
      const parsed = parseMoney(text, money.currency);
      if (!parsed.ok) problems[name] = parsed.message;
      else if (schema.minimum !== undefined && parsed.minor < schema.minimum)
        problems[name] =
          `The ${money.label} must be at least ${formatMinor(schema.minimum, money.currency)} ${money.currency}.`;
      else edited[name] = parsed.minor;
    } else if (text !== '') {
      edited[name] = valueFor(schema, text);
    }
    const limit = editing.limit;
    const value = edited[name];
    if (limit?.field === name && typeof value === 'number' && value > limit.max) {
      problems[name] =
        `At most ${limit.text} (${limit.why}); ` +
        `${money ? `${formatMinor(value, money.currency)} ${money.currency}` : value} is too much.`;
    }
  }
  return Object.keys(problems).length > 0 ? { ok: false, problems } : { ok: true, args: edited };
}

function Note({
  name,
  schema,
  money,
  editing,
}: {
  name: string;
  schema: FieldSchema;
  money?: MoneyFieldView;
  editing: EditingView;
}) {
  const limit = editing.limit?.field === name ? editing.limit : undefined;
  return (
    <span className="block text-xs text-zinc-600 dark:text-zinc-400" id={`revision-note-${name}`}>
      {money
        ? `In ${money.currency}, ${money.digits === 0 ? 'whole units (no decimals)' : `up to ${money.digits} decimals`}`
        : `${schema.type ?? 'text'}${schema.minimum !== undefined ? ` ≥ ${schema.minimum}` : ''}` +
          `${schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? ` ≤ ${schema.maximum}` : ''}` +
          `${schema.maxLength !== undefined ? `, up to ${schema.maxLength} characters` : ''}`}
      {limit ? (
        <span data-testid="revision-limit" className="font-medium text-zinc-800 dark:text-zinc-200">
          {' '}
          · at most {limit.text} ({limit.why})
        </span>
      ) : null}
      {editing.limitUnavailable && editing.limit === undefined && (money || schema.type === 'integer') ? (
        <span data-testid="revision-limit-unavailable"> · {editing.limitUnavailable}</span>
      ) : null}
    </span>
  );
}

/**
 * An edit form generated from the contract's JSON Schema, prefilled with the current arguments.
 * Locked arguments are shown, not editable; money is typed in major units beside its currency and
 * converted exactly; the live limit is checked before sending. The server checks all of it again.
 */
export function RevisionForm({
  proposalId,
  fields,
  args,
  editing,
}: {
  proposalId: string;
  fields: Record<string, FieldSchema>;
  args: Record<string, unknown>;
  editing: EditingView;
}) {
  const router = useRouter();
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      Object.keys(fields).map((name) => [
        name,
        editing.money.find((m) => m.field === name)?.value ?? (args[name] === undefined ? '' : String(args[name])),
      ]),
    ),
  );
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [reason, setReason] = useState('');
  const [reasonProblem, setReasonProblem] = useState<string>();
  const mutation = useMutation({
    mutationFn: async (edited: Record<string, unknown>) =>
      valueOrThrow(await postRevision(proposalId, { args: edited, reason })).id,
    onSuccess: (id) => router.push(`/proposals/${id}`),
  });
  const issues = mutation.error instanceof OperatorApiError ? mutation.error.problem.issues : [];
  // Issues about a field of the form are shown beside it; anything else is said above the button.
  const shownBeside = issues.length > 0 && issues.every((issue) => issue.field in fields);
  const problemOf = (name: string) => problems[name] ?? issues.find((i) => i.field === name)?.message;
  const set = (name: string, text: string) => {
    setValues({ ...values, [name]: text });
    setProblems({});
  };

  return (
    <form
      data-testid="revision-form"
      className="space-y-4"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const built = build(fields, args, values, editing);
        const missingReason = /\S/.test(reason) ? undefined : 'Say why you are changing it.';
        setProblems(built.ok ? {} : built.problems);
        setReasonProblem(missingReason);
        if (built.ok && !missingReason) mutation.mutate(built.args);
        else mutation.reset();
      }}
    >
      {Object.entries(fields).map(([name, schema]) => {
        const problem = problemOf(name);
        const problemId = `revision-problem-${name}`;
        const describedBy = `revision-note-${name}${problem ? ` ${problemId}` : ''}`;
        const problemLine = problem ? (
          <span
            id={problemId}
            role="alert"
            className="block text-xs text-red-700 dark:text-red-300"
            data-testid={`revision-issue-${name}`}
          >
            {problem}
          </span>
        ) : null;
        if (editing.locked.includes(name)) {
          return (
            <div key={name} className="text-sm" data-testid={`revision-locked-${name}`}>
              <span className="font-mono">{name}</span>
              <p
                className={
                  'mt-1 rounded-md border border-dashed border-zinc-300 bg-zinc-50 px-3 py-2 dark:border-zinc-700 ' +
                  'dark:bg-zinc-900'
                }
              >
                <PayloadText value={args[name] === undefined ? '—' : String(args[name])} />
                <span className="ml-2 text-xs text-zinc-600 dark:text-zinc-400">locked</span>
              </p>
              <span className="block text-xs text-zinc-600 dark:text-zinc-400" id={`revision-note-${name}`}>
                It names what this proposal acts on; to change it, reject the proposal and ask for a new one.
              </span>
              {problemLine}
            </div>
          );
        }
        const money = editing.money.find((m) => m.field === name);
        const common = {
          'data-testid': `revision-${name}`,
          value: values[name],
          'aria-invalid': problem ? true : undefined,
          'aria-describedby': describedBy,
          onChange: (e: { target: { value: string } }) => set(name, e.target.value),
        };
        return (
          <label key={name} className="block text-sm">
            <span className={money ? '' : 'font-mono'}>{money ? money.label : name}</span>
            {money ? (
              <span className="ml-1 font-mono text-xs text-zinc-600 dark:text-zinc-400">
                ({name}, sent in minor units)
              </span>
            ) : null}
            <span className="mt-1 flex items-center gap-2">
              {schema.enum ? (
                <Select {...common} className="font-mono">
                  {schema.enum.map((option) => (
                    <option key={option} value={option}>
                      {option}
                    </option>
                  ))}
                </Select>
              ) : (
                <Input
                  {...common}
                  inputMode={money ? 'decimal' : schema.type === 'integer' ? 'numeric' : undefined}
                  autoComplete="off"
                  maxLength={money ? 20 : schema.maxLength}
                  className="font-mono"
                />
              )}
              {money ? (
                <span data-testid={`revision-currency-${name}`} className="font-mono font-medium">
                  {money.currency}
                </span>
              ) : null}
            </span>
            <Note name={name} schema={schema} money={money} editing={editing} />
            {problemLine}
          </label>
        );
      })}
      <label className="block text-sm">
        <span>Reason for the change</span>
        <Textarea
          data-testid="revision-why"
          value={reason}
          required
          rows={2}
          maxLength={REVISION_REASON_MAX}
          aria-invalid={reasonProblem ? true : undefined}
          aria-describedby={`revision-why-note${reasonProblem ? ' revision-why-problem' : ''}`}
          onChange={(e) => {
            setReason(e.target.value);
            setReasonProblem(undefined);
          }}
          className="mt-1"
        />
        <span id="revision-why-note" className="block text-xs text-zinc-600 dark:text-zinc-400">
          Shown with the revision, in History and in its notification; up to {REVISION_REASON_MAX} characters.
        </span>
        {reasonProblem ? (
          <span
            id="revision-why-problem"
            role="alert"
            data-testid="revision-why-problem"
            className="block text-xs text-red-700 dark:text-red-300"
          >
            {reasonProblem}
          </span>
        ) : null}
      </label>
      {mutation.error && !shownBeside ? (
        <p role="alert" data-testid="revision-error" className="text-sm text-red-700 dark:text-red-300">
          {mutation.error.message}
        </p>
      ) : null}
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Saving creates a new revision that goes through every check again and replaces this proposal. Someone other than
        you must approve it.
      </p>
      <Button variant="primary" size="lg" type="submit" data-testid="revision-submit" disabled={mutation.isPending}>
        {mutation.isPending ? 'Checking…' : 'Create revision'}
      </Button>
    </form>
  );
}
