'use client';

import type { ReactNode } from 'react';
import { OperatorApiError } from '@/lib/client/operator-api';
import { CopyButton } from './copy-button';
import { Button } from './ui/button';

/** Pieces the Settings forms (notifications, agent keys) share. */

export const CARD = 'rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900';

/**
 * The end of a settings form: a problem found before sending, the server's refusal, the save
 * button and "Saved." once saved. Test ids are `<prefix>-local-error`, `-error`, `-save`, `-saved`.
 */
export function SettingsFormFooter({
  localProblem,
  save,
  testIdPrefix,
  label,
}: {
  localProblem: string | null;
  save: { error: Error | null; isPending: boolean; isSuccess: boolean };
  testIdPrefix: string;
  label: string;
}) {
  return (
    <>
      {localProblem ? (
        <p role="alert" data-testid={`${testIdPrefix}-local-error`} className="text-sm text-red-700 dark:text-red-300">
          {localProblem}
        </p>
      ) : null}
      <ProblemText error={save.error} testId={`${testIdPrefix}-error`} />
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="primary" type="submit" data-testid={`${testIdPrefix}-save`} disabled={save.isPending}>
          {save.isPending ? 'Saving…' : label}
        </Button>
        {save.isSuccess && !save.isPending ? (
          <span
            role="status"
            data-testid={`${testIdPrefix}-saved`}
            className="text-sm text-green-800 dark:text-green-300"
          >
            Saved.
          </span>
        ) : null}
      </div>
    </>
  );
}

/** What failed, in the server's words, with each field's problem. */
export function ProblemText({ error, testId }: { error: Error | null; testId: string }) {
  if (!error) return null;
  const issues = error instanceof OperatorApiError ? error.problem.issues : [];
  return (
    <div
      role="alert"
      data-testid={testId}
      className={
        'rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 ' +
        'dark:text-red-200'
      }
    >
      <p>{error.message}</p>
      {issues.length > 0 ? (
        <ul className="mt-1 list-disc pl-5">
          {issues.map((issue) => (
            <li key={`${issue.field}:${issue.code}`}>
              <span className="font-mono">{issue.field}</span>: {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export type EventOption = { name: string; about: string };

/** Named choices as checkboxes, each with what it is about; `selected` keeps the options' order. */
export function CheckboxFieldset({
  legend,
  options,
  selected,
  onChange,
  testId,
  idOf,
}: {
  legend: string;
  options: EventOption[];
  selected: string[];
  onChange: (next: string[]) => void;
  testId: string;
  idOf: (name: string) => string;
}) {
  return (
    <fieldset className="space-y-1" data-testid={testId}>
      <legend className="text-sm font-medium">{legend}</legend>
      <div className="grid gap-1 sm:grid-cols-2">
        {options.map((option) => {
          const id = idOf(option.name);
          return (
            <label
              key={option.name}
              htmlFor={id}
              className="flex items-start gap-2 rounded px-1 py-0.5 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800"
            >
              <input
                id={id}
                type="checkbox"
                data-testid={id}
                className="mt-1"
                checked={selected.includes(option.name)}
                onChange={(e) =>
                  onChange(
                    e.target.checked
                      ? options.map((o) => o.name).filter((name) => name === option.name || selected.includes(name))
                      : selected.filter((name) => name !== option.name),
                  )
                }
              />
              <span>
                <span className="font-mono text-xs">{option.name}</span>
                <span className="block text-xs text-zinc-600 dark:text-zinc-400">{option.about}</span>
              </span>
            </label>
          );
        })}
      </div>
    </fieldset>
  );
}

/** The notification events as checkboxes, each with what it is about. */
export function EventsFieldset({
  events,
  selected,
  onChange,
  idPrefix,
}: {
  events: EventOption[];
  selected: string[];
  onChange: (next: string[]) => void;
  idPrefix: string;
}) {
  return (
    <CheckboxFieldset
      legend="Events"
      options={events}
      selected={selected}
      onChange={onChange}
      testId={`${idPrefix}-events`}
      idOf={(name) => `${idPrefix}-event-${name}`}
    />
  );
}

export function Panel({
  title,
  id,
  children,
  testId,
}: {
  title: string;
  id: string;
  children: ReactNode;
  testId: string;
}) {
  return (
    <section aria-labelledby={id} data-testid={testId} className="space-y-3">
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/**
 * A form in a card that submits through `onSubmit` (never a page navigation). `notice` goes above
 * it: what the last submission made and shows only once (a webhook's secret, an invitation link).
 */
export function CardForm({
  testId,
  label,
  labelledBy,
  onSubmit,
  notice,
  children,
}: {
  testId: string;
  label?: string;
  labelledBy?: string;
  onSubmit: () => void;
  notice?: ReactNode;
  children: ReactNode;
}) {
  const form = (
    <form
      data-testid={testId}
      aria-label={label}
      aria-labelledby={labelledBy}
      className={`space-y-4 ${CARD}`}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
  if (notice === undefined) return form;
  return (
    <div className="space-y-3">
      {notice}
      {form}
    </div>
  );
}

/** A loading placeholder of the final layout's size: one block per height (rem). */
export function LoadingBlocks({ testId, label, heights }: { testId: string; label: string; heights: number[] }) {
  return (
    <div data-testid={testId} role="status" aria-busy="true" aria-label={label} className="space-y-4">
      {heights.map((rem, i) => (
        <div
          key={i}
          className="animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800"
          style={{ height: `${rem}rem` }}
        />
      ))}
    </div>
  );
}

/** What could not be loaded, in the server's words, with a way to try again. */
export function LoadError({
  testId,
  what,
  error,
  onRetry,
}: {
  testId: string;
  what: string;
  error: Error | null;
  onRetry: () => void;
}) {
  return (
    <div
      role="alert"
      data-testid={testId}
      className={
        'space-y-2 rounded-md border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-800 ' +
        'dark:bg-red-950 dark:text-red-200'
      }
    >
      <p>
        {what} could not be loaded: {error?.message}
      </p>
      <Button variant="secondary" onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}

/** "Could not refresh": a background refetch failed and the page shows what it had. */
export function StaleNotice({ testId, error }: { testId: string; error: Error }) {
  return (
    <p
      role="status"
      data-testid={testId}
      className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm dark:border-amber-800 dark:bg-amber-950"
    >
      Could not refresh ({error.message}); showing what was loaded before.
    </p>
  );
}

/**
 * A secret shown this once (a webhook's signing secret, an agent key), with a copy button and
 * the warning. Test ids: `<testId>-notice`, `<testId>`, `<testId>-copy`, `<testId>-done`.
 */
export function ShownOnce({
  title,
  value,
  copyLabel,
  testId,
  onDone,
  children,
}: {
  title: string;
  value: string;
  copyLabel: string;
  testId: string;
  onDone: () => void;
  children: ReactNode;
}) {
  return (
    <div
      role="status"
      data-testid={`${testId}-notice`}
      className={
        'space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 ' +
        'dark:bg-amber-950'
      }
    >
      <p className="font-medium">{title}</p>
      <div className="flex flex-wrap items-center gap-2">
        <code
          data-testid={testId}
          className="min-w-0 break-all rounded bg-white px-2 py-1 font-mono text-xs dark:bg-zinc-900"
        >
          {value}
        </code>
        <CopyButton value={value} label={copyLabel} testId={`${testId}-copy`} />
      </div>
      {children}
      <Button variant="secondary" data-testid={`${testId}-done`} onClick={onDone}>
        I have stored it
      </Button>
    </div>
  );
}
