'use client';

import { useRouter } from 'next/navigation';
import { type FormEvent, useState, useSyncExternalStore, useTransition } from 'react';
import { EVENT_TYPES, FILTER_KEYS, HISTORY_OUTCOMES, type HistoryView, historySearch } from '@/lib/audit/history-view';
import { type DayFormat, dayFormat, formatDay, parseDay } from '@/lib/client/locale-date';
import { visibleText } from '@/lib/text/visible';
import { Button } from './ui/button';
import { Input } from './ui/input';
import { Select } from './ui/select';

const subscribe = () => () => {};
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
// The locale the page's times are formatted in (components/viewer-time.tsx): dates are typed in it too.
const browserLocale = () => Intl.DateTimeFormat().resolvedOptions().locale;

const LABEL = 'flex flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-400';

/** One filter's select: `choices` are [value, words] pairs, the empty value means "any". */
function Choice({
  name,
  label,
  any,
  value,
  choices,
}: {
  name: string;
  label: string;
  any: string;
  value?: string;
  choices: [string, string][];
}) {
  return (
    <label className={LABEL}>
      {label}
      <Select compact name={name} defaultValue={value ?? ''} data-testid={`history-filter-${name}`}>
        <option value="">{any}</option>
        {choices.map(([choice, words]) => (
          <option key={choice} value={choice}>
            {words}
          </option>
        ))}
      </Select>
    </label>
  );
}

/**
 * A calendar day typed in the viewer's locale (its pattern in the label); before JavaScript runs (or
 * without it) the same field takes ISO 2030-01-31, which is what the URL carries.
 */
function DayInput({
  name,
  label,
  value,
  format,
  invalid,
}: {
  name: 'from' | 'to';
  label: string;
  value?: string;
  format: DayFormat | null;
  invalid: boolean;
}) {
  const pattern = format?.pattern ?? 'yyyy-mm-dd';
  return (
    <label className={LABEL}>
      <span>
        {label} <span className="font-normal">({pattern})</span>
      </span>
      <Input
        compact
        key={pattern}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        name={name}
        defaultValue={value && format ? formatDay(value, format) : (value ?? '')}
        placeholder={pattern}
        aria-invalid={invalid || undefined}
        data-testid={`history-filter-${name}`}
        data-pattern={pattern}
        className="w-32"
      />
    </label>
  );
}

type Props = { view: HistoryView; people: { id: string; name: string }[]; agents: string[]; actions: string[] };

/**
 * The history's filters. Applying them writes the URL (so a view can be shared) with the
 * viewer's time zone as `tz`, in which `from` and `to` are calendar days. Without JavaScript the
 * form still submits as a GET.
 */
export function HistoryFilters({ view, people, agents, actions }: Props) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const tz = useSyncExternalStore(subscribe, browserZone, () => view.tz ?? 'UTC');
  const locale = useSyncExternalStore(subscribe, browserLocale, () => null);
  const format = locale ? dayFormat(locale) : null;
  const [dateError, setDateError] = useState<{ name: string; message: string } | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next: HistoryView = { tab: view.tab };
    for (const key of FILTER_KEYS) {
      let value = form.get(key);
      if ((key === 'from' || key === 'to') && typeof value === 'string' && value.trim() !== '') {
        const day = parseDay(value, format ?? dayFormat('sv-SE'), key === 'from' ? 'From' : 'To');
        if (!day.ok) {
          setDateError({ name: key, message: day.message });
          return;
        }
        value = day.iso;
      }
      if (typeof value === 'string' && value.trim() !== '') Object.assign(next, { [key]: value });
    }
    setDateError(null);
    if (!next.from && !next.to) delete next.tz;
    startTransition(() => router.push(`/history${historySearch(next)}`));
  };

  const filtered = FILTER_KEYS.some((key) => key !== 'tz' && view[key]);
  return (
    <form
      method="get"
      action="/history"
      onSubmit={submit}
      data-testid="history-filters"
      aria-label="Filters"
      className="flex flex-wrap items-end gap-3"
    >
      {view.tab === 'events' ? <input type="hidden" name="tab" value="events" /> : null}
      <input type="hidden" name="tz" value={tz} data-testid="history-filter-tz" />
      <Choice
        name="person"
        label="Person"
        any="Anyone"
        value={view.person}
        choices={people.map((p) => [p.id, visibleText(p.name)])}
      />
      <Choice
        name="agent"
        label="Agent"
        any="Any agent"
        value={view.agent}
        choices={agents.map((agent) => [agent, visibleText(agent)])}
      />
      <Choice
        name="action"
        label="Action"
        any="Any action"
        value={view.action}
        choices={actions.map((action) => [action, action])}
      />
      <Choice
        name="outcome"
        label="Outcome"
        any="Any outcome"
        value={view.outcome}
        choices={HISTORY_OUTCOMES.map((outcome) => [outcome, outcome.replace('_', ' ')])}
      />
      {view.tab === 'events' ? (
        <Choice
          name="type"
          label="Event"
          any="Any event"
          value={view.type}
          choices={EVENT_TYPES.map((type) => [type, type])}
        />
      ) : null}
      <DayInput name="from" label="From" value={view.from} format={format} invalid={dateError?.name === 'from'} />
      <DayInput name="to" label="To" value={view.to} format={format} invalid={dateError?.name === 'to'} />
      <label className={LABEL}>
        Proposal id or text
        <Input
          compact
          type="search"
          name="q"
          defaultValue={view.q ?? ''}
          maxLength={200}
          placeholder="prp_… or words"
          data-testid="history-filter-q"
          className="w-48"
        />
      </label>
      <Button type="submit" variant="primary" data-testid="history-filter-apply" disabled={pending}>
        {pending ? 'Applying…' : 'Apply'}
      </Button>
      {filtered ? (
        <a
          href={`/history${historySearch({ tab: view.tab })}`}
          data-testid="history-filter-clear"
          className="py-1.5 text-sm underline focus-visible:outline-2 focus-visible:outline-blue-600"
        >
          Clear filters
        </a>
      ) : null}
      {dateError ? (
        <p
          role="alert"
          data-testid="history-filter-date-error"
          className="w-full text-sm text-red-700 dark:text-red-300"
        >
          {dateError.message}
        </p>
      ) : null}
      <p className="w-full text-xs text-zinc-500">
        Dates are days in your time zone ({tz}), written {format?.pattern ?? 'yyyy-mm-dd'} as your times are.
      </p>
    </form>
  );
}
