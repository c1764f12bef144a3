import type { Metadata } from 'next';
import Link from 'next/link';
import { Suspense } from 'react';
import {
  ProposalListFilters,
  ProposalListSkeleton,
  ProposalListTable,
  SearchTargetNote,
} from '@/components/proposal-list';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import {
  LIST_STATUSES,
  listSearch,
  listViewFromSearch,
  type ProposalListView,
  proposalListPage,
} from '@/lib/proposals/list';
import { encodeCursor, type ListCursor } from '@/lib/proposals/list-cursor';

export const metadata: Metadata = { title: 'Proposals' };

async function Results({ tenantId, view, cursor }: { tenantId: string; view: ProposalListView; cursor?: ListCursor }) {
  const page = await proposalListPage(await getDb(), tenantId, view, cursor);
  const filtered = Boolean(view.status || view.q);
  return (
    <div className="space-y-3">
      {page.target ? <SearchTargetNote target={page.target} /> : null}
      {page.items.length === 0 && page.target?.kind !== 'none' ? (
        <p
          data-testid="proposal-list-empty"
          className="rounded-lg border border-dashed border-zinc-300 p-8 text-center dark:border-zinc-700"
        >
          {filtered
            ? 'No proposals match these filters.'
            : 'No proposals yet. Agents propose through POST /api/v1/proposals (see “Connect an agent” in the README).'}
        </p>
      ) : null}
      {page.items.length > 0 ? <ProposalListTable items={page.items} /> : null}
      <nav aria-label="Pages" className="flex gap-4 text-sm">
        {cursor ? (
          <Link data-testid="proposal-list-newest" className="underline" href={`/proposals${listSearch(view)}`}>
            ← Newest
          </Link>
        ) : null}
        {page.nextCursor ? (
          <Link
            data-testid="proposal-list-older"
            className="underline"
            href={`/proposals${listSearch(view, { cursor: page.nextCursor })}`}
          >
            Older →
          </Link>
        ) : null}
      </nav>
    </div>
  );
}

/**
 * Every proposal of the tenant, whatever became of it, newest first: filtered by status, found by order, SKU, agent or
 * decider.
 */
export default async function ProposalsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const context = await dashboardContext('/proposals');
  if (!context.tenantId) return null;
  const { view, cursor } = listViewFromSearch(await searchParams);
  return (
    <section aria-labelledby="proposals-heading" className="space-y-4" data-testid="proposal-list-page">
      <div>
        <h1 id="proposals-heading" className="text-xl font-semibold">
          Proposals
        </h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Every proposal of {context.tenantName}, pending or not, newest first.
        </p>
      </div>
      <ProposalListFilters view={view} statuses={LIST_STATUSES} />
      <Suspense key={`${listSearch(view)}#${cursor ? encodeCursor(cursor) : ''}`} fallback={<ProposalListSkeleton />}>
        <Results tenantId={context.tenantId} view={view} cursor={cursor} />
      </Suspense>
    </section>
  );
}
