import type { Metadata } from 'next';
import Link from 'next/link';
import { HistoryChain } from '@/components/history-chain';
import { HistoryFilters } from '@/components/history-filters';
import { DecisionsTable, EventsTable } from '@/components/history-tables';
import { HistoryHeader } from '@/components/history-tabs';
import { Button } from '@/components/ui/button';
import { decisionsPage, eventsPage, historyChoices } from '@/lib/audit/history';
import { parseHistoryParams, searchParamsOf } from '@/lib/audit/history-filters';
import { exportHref, type HistoryView, historySearch } from '@/lib/audit/history-view';
import { type BreakReason, describeBreak } from '@/lib/audit/verify';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import { tenantActions } from '@/lib/definitions/catalog';
import { chainStatus } from '@/lib/jobs/watch-audit-chain';

export const metadata: Metadata = { title: 'History' };

/**
 * The decision history (docs/design.md §8): Decisions (one row per decided or ended proposal) and
 * Events (the hash-chained trail), both filtered by the URL and paged by keyset; exports of the
 * filtered events; and whether the chain verifies.
 */
export default async function HistoryPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const context = await dashboardContext('/history');
  if (!context.tenantId) return null;
  const search = await searchParams;
  const parsed = parseHistoryParams(searchParamsOf(search), 'page');
  const view: HistoryView = parsed.ok ? parsed.view : { tab: search.tab === 'events' ? 'events' : 'decisions' };
  const db = await getDb();
  const [choices, chain, actions] = await Promise.all([
    historyChoices(db, context.tenantId),
    chainStatus(db, context.tenantId),
    tenantActions(db, context.tenantId),
  ]);
  const decisions =
    parsed.ok && view.tab === 'decisions'
      ? await decisionsPage(db, context.tenantId, parsed.filters, parsed.cursor)
      : null;
  const events =
    parsed.ok && view.tab === 'events' ? await eventsPage(db, context.tenantId, parsed.filters, parsed.cursor) : null;
  const nextCursor = decisions?.nextCursor ?? events?.nextCursor ?? null;
  const empty = (decisions?.items.length ?? events?.items.length ?? 0) === 0;
  const exported = view.tab === 'decisions' ? 'behind these decisions' : 'shown';

  return (
    <section aria-labelledby="history-heading" className="space-y-4" data-testid="history-page">
      <HistoryHeader
        current={view.tab}
        hrefOf={(tab) =>
          `/history${historySearch({ ...view, tab, ...(tab === 'decisions' ? { type: undefined } : {}) })}`
        }
      />
      <HistoryChain
        status={chain}
        reasonWords={chain.state === 'broken' ? describeBreak(chain.reason as BreakReason) : undefined}
        isAdmin={context.role === 'admin'}
      />
      <p className="text-sm text-zinc-500">
        {view.tab === 'decisions'
          ? `Every proposal of ${context.tenantName} that was decided or ended, newest decision first.`
          : `Every event in ${context.tenantName}'s hash-chained evidence trail, newest first.`}
      </p>
      <HistoryFilters
        key={historySearch(view)}
        view={view}
        people={choices.people}
        agents={choices.agents}
        actions={actions.map((a) => a.name)}
      />
      {parsed.ok ? (
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <span className="text-zinc-500">
            Export the events {exported} with every hashed field.{' '}
            <code className="font-mono text-xs">audit:verify --export</code> checks the JSON Lines offline: an
            unfiltered export as the whole chain, a filtered one as the events it holds, each with its proof of
            inclusion.
          </span>
          <Button asChild>
            <a href={exportHref(view, 'csv')} download data-testid="history-export-csv">
              Export CSV
            </a>
          </Button>
          <Button asChild>
            <a href={exportHref(view, 'jsonl')} download data-testid="history-export-jsonl">
              Export JSON Lines
            </a>
          </Button>
        </div>
      ) : (
        <div
          role="alert"
          data-testid="history-filter-error"
          className={
            'rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 ' +
            'dark:bg-amber-950 dark:text-amber-200'
          }
        >
          <p className="font-medium">These filters cannot be used:</p>
          <ul className="ml-5 list-disc">
            {parsed.messages.map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
          <Link href={`/history${historySearch({ tab: view.tab })}`} className="underline">
            Start again without filters
          </Link>
        </div>
      )}
      {parsed.ok && empty ? (
        <p
          data-testid="history-empty"
          className="rounded-lg border border-dashed border-zinc-300 p-8 text-center dark:border-zinc-700"
        >
          {view.tab === 'decisions' ? 'No decided proposals match.' : 'No events match.'}
        </p>
      ) : null}
      {decisions && decisions.items.length > 0 ? <DecisionsTable rows={decisions.items} /> : null}
      {events && events.items.length > 0 ? <EventsTable rows={events.items} /> : null}
      <div className="flex gap-4 text-sm">
        {parsed.ok && parsed.cursor ? (
          <Link data-testid="history-newest" className="underline" href={`/history${historySearch(view)}`}>
            ← Newest
          </Link>
        ) : null}
        {nextCursor ? (
          <Link
            data-testid="history-older"
            className="underline"
            href={`/history${historySearch(view, { cursor: nextCursor })}`}
          >
            Older →
          </Link>
        ) : null}
      </div>
    </section>
  );
}
