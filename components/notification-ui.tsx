'use client';

import type { ReactNode } from 'react';
import { OperatorApiError } from '@/lib/client/operator-api';

/** Pieces the Settings → Notifications forms share. */

export const PRIMARY_BUTTON =
  'rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300';
export const SECONDARY_BUTTON =
  'rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-100 disabled:opacity-60 dark:border-zinc-700 dark:hover:bg-zinc-800';
export const CARD = 'rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900';
export const INPUT = 'mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-950';

/** What failed, in the server's words, with each field's problem. */
export function ProblemText({ error, testId }: { error: Error | null; testId: string }) {
  if (!error) return null;
  const issues = error instanceof OperatorApiError ? error.problem.issues : [];
  return (
    <div role="alert" data-testid={testId} className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
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

/** The notification events as checkboxes, each with what it is about. */
export function EventsFieldset({ events, selected, onChange, idPrefix }: { events: EventOption[]; selected: string[]; onChange: (next: string[]) => void; idPrefix: string }) {
  return (
    <fieldset className="space-y-1" data-testid={`${idPrefix}-events`}>
      <legend className="text-sm font-medium">Events</legend>
      <div className="grid gap-1 sm:grid-cols-2">
        {events.map((event) => {
          const id = `${idPrefix}-event-${event.name}`;
          return (
            <label key={event.name} htmlFor={id} className="flex items-start gap-2 rounded px-1 py-0.5 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800">
              <input
                id={id}
                type="checkbox"
                data-testid={id}
                className="mt-1"
                checked={selected.includes(event.name)}
                onChange={(e) => onChange(e.target.checked ? events.map((o) => o.name).filter((name) => name === event.name || selected.includes(name)) : selected.filter((name) => name !== event.name))}
              />
              <span>
                <span className="font-mono text-xs">{event.name}</span>
                <span className="block text-xs text-zinc-600 dark:text-zinc-400">{event.about}</span>
              </span>
            </label>
          );
        })}
      </div>
    </fieldset>
  );
}

export function Panel({ title, id, children, testId }: { title: string; id: string; children: ReactNode; testId: string }) {
  return (
    <section aria-labelledby={id} data-testid={testId} className="space-y-3">
      <h2 id={id} className="text-lg font-semibold">{title}</h2>
      {children}
    </section>
  );
}

/**
 * A form in a card that submits through `onSubmit` (never a page navigation). `notice` goes above
 * it: what the last submission made and shows only once (a webhook's secret, an invitation link).
 */
export function CardForm({ testId, label, labelledBy, onSubmit, notice, children }: { testId: string; label?: string; labelledBy?: string; onSubmit: () => void; notice?: ReactNode; children: ReactNode }) {
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
