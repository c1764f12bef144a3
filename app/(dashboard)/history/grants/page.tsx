import type { Metadata } from 'next';
import Link from 'next/link';
import { GrantsTable } from '@/components/grants-table';
import { HistoryHeader } from '@/components/history-tabs';
import { ViewerZone } from '@/components/viewer-time';
import { actorResolver } from '@/lib/audit/actors';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import { Refusal } from '@/lib/errors/refusal';
import { type ActorShown, actorLabel } from '@/lib/events/actor-label';
import { type GrantsQuery, grantsQuery, listGrants } from '@/lib/grants/list';

export const metadata: Metadata = { title: 'Grants · History' };

/** The page's query as the API reads it, or undefined (with the words why) for one it refuses. */
function queryOf(search: Record<string, string | string[] | undefined>): { query: GrantsQuery; problem?: string } {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(search))
    for (const one of [value].flat()) if (one !== undefined) params.append(key, one);
  try {
    return { query: grantsQuery(params) };
  } catch (error) {
    if (error instanceof Refusal) return { query: { state: 'all' }, problem: error.message };
    throw error;
  }
}

const hrefOf = (state: GrantsQuery['state'], cursor?: string) => {
  const params = new URLSearchParams();
  if (state === 'active') params.set('state', 'active');
  if (cursor) params.set('cursor', cursor);
  const search = params.toString();
  return `/history/grants${search ? `?${search}` : ''}`;
};

/**
 * History → Grants (docs/grants.md): the tenant's standing grants, newest first, for every member
 * (viewers too): who let Countersign approve what in their name, until when, how much of it is
 * used. The granter or an admin may revoke an active one here.
 */
export default async function GrantsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const context = await dashboardContext('/history/grants');
  if (!context.tenantId) return null;
  const { query, problem } = queryOf(await searchParams);
  const db = await getDb();
  const { grants, nextCursor } = await listGrants(db, context.tenantId, query);
  // Who ended each ended grant, by name in one look-up; no one: Countersign itself.
  const enders = grants.flatMap((grant) => (grant.endedBy ? [{ actorType: 'user', actorId: grant.endedBy }] : []));
  const enderOf = await actorResolver(db, context.tenantId, enders);
  const endedBy: Record<string, ActorShown> = Object.fromEntries(
    grants
      .filter((grant) => grant.endedAt)
      .map((grant) => [
        grant.id,
        grant.endedBy
          ? enderOf({ actorType: 'user', actorId: grant.endedBy })
          : actorLabel('system', 'countersign', undefined),
      ]),
  );
  const { userId } = context.operator;
  const isAdmin = context.role === 'admin';

  return (
    <section aria-labelledby="history-heading" className="space-y-4" data-testid="grants-page">
      <HistoryHeader current="grants" />
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Standing grants in {context.tenantName}, newest first: a person who approved a proposal let Countersign approve
        further ones like it in their name, for a while, up to a count. Only the granter or an admin may revoke one.
      </p>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <nav aria-label="Which grants" className="flex gap-3 text-sm">
          <Link
            href={hrefOf('all')}
            data-testid="grants-all"
            aria-current={query.state === 'all' ? 'page' : undefined}
            className={query.state === 'all' ? 'font-semibold underline' : 'underline'}
          >
            All
          </Link>
          <Link
            href={hrefOf('active')}
            data-testid="grants-active-only"
            aria-current={query.state === 'active' ? 'page' : undefined}
            className={query.state === 'active' ? 'font-semibold underline' : 'underline'}
          >
            Active only
          </Link>
        </nav>
        <ViewerZone />
      </div>
      {problem ? (
        <p
          role="alert"
          data-testid="grants-query-error"
          className={
            'rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 ' +
            'dark:bg-amber-950 dark:text-amber-200'
          }
        >
          {problem} Showing every grant from the newest.
        </p>
      ) : null}
      {grants.length === 0 ? (
        <p
          data-testid="grants-empty"
          className="rounded-lg border border-dashed border-zinc-300 p-8 text-center dark:border-zinc-700"
        >
          {query.state === 'active'
            ? 'No grant is active: every proposal that needs a person waits for one.'
            : 'No standing grants yet.'}{' '}
          <span className="block text-sm text-zinc-600 dark:text-zinc-400">
            An approver makes one from the approve confirmation of a proposal that needs one approver and no passkey.
          </span>
        </p>
      ) : (
        <GrantsTable
          grants={grants}
          endedBy={endedBy}
          mayRevoke={(grant) => grant.state === 'active' && (isAdmin || grant.grantedBy.id === userId)}
        />
      )}
      <div className="flex gap-4 text-sm">
        {query.cursor ? (
          <Link data-testid="grants-newest" className="underline" href={hrefOf(query.state)}>
            ← Newest
          </Link>
        ) : null}
        {nextCursor ? (
          <Link data-testid="grants-older" className="underline" href={hrefOf(query.state, nextCursor)}>
            Older →
          </Link>
        ) : null}
      </div>
    </section>
  );
}
