'use client';

import { useRouter } from 'next/navigation';
import { useSyncExternalStore, useTransition, type FormEvent } from 'react';
import { EVENT_TYPES, FILTER_KEYS, HISTORY_OUTCOMES, historySearch, type HistoryView } from '@/lib/audit/history-view';
import { visibleText } from '@/lib/text/visible';

const field = 'rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-600 dark:border-zinc-700 dark:bg-zinc-900';

const subscribe = () => () => {};
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

const LABEL = 'flex flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-400';

/** One filter's select: `choices` are [value, words] pairs, the empty value means "any". */
function Choice({ name, label, any, value, choices }: { name: string; label: string; any: string; value?: string; choices: [string, string][] }) {
  return (
    <label className={LABEL}>
      {label}
      <select name={name} defaultValue={value ?? ''} data-testid={`history-filter-${name}`} className={field}>
        <option value="">{any}</option>
        {choices.map(([choice, words]) => <option key={choice} value={choice}>{words}</option>)}
      </select>
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

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next: HistoryView = { tab: view.tab };
    for (const key of FILTER_KEYS) {
      const value = form.get(key);
      if (typeof value === 'string' && value !== '') Object.assign(next, { [key]: value });
    }
    if (!next.from && !next.to) delete next.tz;
    startTransition(() => router.push(`/history${historySearch(next)}`));
  };

  const filtered = FILTER_KEYS.some((key) => key !== 'tz' && view[key]);
  return (
    <form method="get" action="/history" onSubmit={submit} data-testid="history-filters" aria-label="Filters" className="flex flex-wrap items-end gap-3">
      {view.tab === 'events' ? <input type="hidden" name="tab" value="events" /> : null}
      <input type="hidden" name="tz" value={tz} data-testid="history-filter-tz" />
      <Choice name="person" label="Person" any="Anyone" value={view.person} choices={people.map((p) => [p.id, visibleText(p.name)])} />
      <Choice name="agent" label="Agent" any="Any agent" value={view.agent} choices={agents.map((agent) => [agent, visibleText(agent)])} />
      <Choice name="action" label="Action" any="Any action" value={view.action} choices={actions.map((action) => [action, action])} />
      <Choice name="outcome" label="Outcome" any="Any outcome" value={view.outcome} choices={HISTORY_OUTCOMES.map((outcome) => [outcome, outcome.replace('_', ' ')])} />
      {view.tab === 'events' ? <Choice name="type" label="Event" any="Any event" value={view.type} choices={EVENT_TYPES.map((type) => [type, type])} /> : null}
      <label className={LABEL}>
        From
        <input type="date" name="from" defaultValue={view.from ?? ''} data-testid="history-filter-from" className={field} />
      </label>
      <label className={LABEL}>
        To
        <input type="date" name="to" defaultValue={view.to ?? ''} data-testid="history-filter-to" className={field} />
      </label>
      <label className={LABEL}>
        Proposal id or text
        <input type="search" name="q" defaultValue={view.q ?? ''} maxLength={200} placeholder="prp_… or words" data-testid="history-filter-q" className={`${field} w-48`} />
      </label>
      <button type="submit" data-testid="history-filter-apply" disabled={pending} className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900">
        {pending ? 'Applying…' : 'Apply'}
      </button>
      {filtered ? (
        <a href={`/history${historySearch({ tab: view.tab })}`} data-testid="history-filter-clear" className="py-1.5 text-sm underline focus-visible:outline-2 focus-visible:outline-blue-600">
          Clear filters
        </a>
      ) : null}
      <p className="w-full text-xs text-zinc-500">Dates are days in your time zone ({tz}).</p>
    </form>
  );
}
