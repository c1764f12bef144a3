import Link from 'next/link';
import type { ProposalListItem, ProposalListView, SearchTarget } from '@/lib/proposals/list';
import type { ProposalStatus } from '@/lib/records';
import { PayloadText } from './payload-text';
import { ProposalListTime } from './proposal-list-time';
import { StatusChip } from './status-chip';
import { Button } from './ui/button';
import { Input } from './ui/input';
import { Select } from './ui/select';
import { CARD_ROW, CardCell, Table } from './ui/table';

const LABEL = 'flex flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-400';

/** The filters: a plain GET form, so the URL carries the view and it works without JavaScript. */
export function ProposalListFilters({
  view,
  statuses,
}: {
  view: ProposalListView;
  statuses: readonly ProposalStatus[];
}) {
  return (
    <form
      method="get"
      action="/proposals"
      role="search"
      aria-label="Find proposals"
      data-testid="proposal-list-filters"
      className="flex flex-wrap items-end gap-3"
    >
      <label className={LABEL}>
        Status
        <Select compact name="status" defaultValue={view.status ?? 'all'} data-testid="proposal-list-status">
          <option value="all">All statuses</option>
          {statuses.map((status) => (
            <option key={status} value={status}>
              {status.replace(/_/g, ' ')}
            </option>
          ))}
        </Select>
      </label>
      <label className={`${LABEL} w-full sm:w-auto sm:min-w-72 sm:flex-1 sm:max-w-sm`}>
        Order id, SKU, agent or decider
        <Input
          compact
          type="search"
          name="q"
          defaultValue={view.q ?? ''}
          maxLength={200}
          placeholder="ord_1843, filter-blue, an agent, a person"
          data-testid="proposal-list-q"
          className="w-full"
        />
      </label>
      <Button variant="primary" type="submit" data-testid="proposal-list-apply">
        Apply
      </Button>
      {view.status || view.q ? (
        <Link href="/proposals" data-testid="proposal-list-clear" className="py-1.5 text-sm underline">
          Clear
        </Link>
      ) : null}
    </form>
  );
}

/** What the search matched, in words, so an empty list is never a mystery. */
export function SearchTargetNote({ target }: { target: SearchTarget }) {
  const text =
    target.kind === 'resource'
      ? `Proposals on ${target.keys.join(' or ')}`
      : target.kind === 'agent'
        ? `Proposals by the agent ${target.name}`
        : target.kind === 'decider'
          ? `Proposals decided by ${target.names.join(' or ')}`
          : `Nothing here is called “${target.term}”. Search by an exact order id (ord_1843), SKU ` +
            `(filter-blue), agent name, or a member’s name or email.`;
  return (
    <p data-testid="proposal-list-target" data-kind={target.kind} className="text-sm text-zinc-600 dark:text-zinc-400">
      <PayloadText value={text} mono={false} />
    </p>
  );
}

/** Who decided, each once; an approval that stopped counting is struck through and says so in words. */
function DecidedBy({ item }: { item: ProposalListItem }) {
  if (item.deciders.length === 0) return <span data-testid="proposal-list-deciders">—</span>;
  return (
    <span data-testid="proposal-list-deciders">
      {item.deciders.map((d, i) => (
        <span key={i} data-testid="proposal-list-decider" data-withdrawn={d.withdrawn ? 'true' : undefined}>
          {i > 0 ? ', ' : null}
          <span className={d.withdrawn ? 'line-through' : undefined}>
            <PayloadText value={d.name} mono={false} /> {d.decision === 'approve' ? 'approved' : 'rejected'}
          </span>
          {d.withdrawn ? <span className="text-amber-800 dark:text-amber-300"> (withdrawn, not counted)</span> : null}
        </span>
      ))}
    </span>
  );
}

const HEAD = ['Status', 'Proposal', 'Agent', 'Decided by', 'Proposed'];

/** One row per proposal: status (with its reason), summary linking to it, agent, who decided, when. */
export function ProposalListTable({ items }: { items: ProposalListItem[] }) {
  return (
    <Table cards head={HEAD} testId="proposal-list">
      {items.map((item) => (
        <tr
          key={item.id}
          data-testid="proposal-list-row"
          data-proposal-id={item.id}
          data-status={item.status}
          className={CARD_ROW}
        >
          <CardCell label="Status">
            <StatusChip status={item.status} />
            {item.status === 'pending_approval' ? (
              <span
                data-testid="proposal-list-progress"
                className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400"
              >
                {item.approvals.standing} of {item.approvals.required} approval
                {item.approvals.required === 1 ? '' : 's'}
              </span>
            ) : null}
            {item.reason ? (
              <span
                data-testid="proposal-list-reason"
                className="mt-1 block max-w-xs text-xs text-zinc-600 dark:text-zinc-400"
              >
                <PayloadText value={item.reason} mono={false} />
              </span>
            ) : null}
          </CardCell>
          <CardCell label="Proposal" wide>
            <Link
              href={`/proposals/${encodeURIComponent(item.id)}`}
              data-testid="proposal-list-link"
              className="font-medium underline"
            >
              <PayloadText value={item.summary} mono={false} />
            </Link>
            <span className="block font-mono text-xs text-zinc-600 dark:text-zinc-400">
              {item.action} · {item.id}
            </span>
          </CardCell>
          <CardCell label="Agent">
            <PayloadText value={item.agent} />
          </CardCell>
          <CardCell label="Decided by">
            <DecidedBy item={item} />
          </CardCell>
          <CardCell label="Proposed">
            <ProposalListTime value={item.createdAt} />
          </CardCell>
        </tr>
      ))}
    </Table>
  );
}

/** Placeholder rows the size of the table, while a page loads. */
export function ProposalListSkeleton() {
  return (
    <div
      role="status"
      aria-busy="true"
      aria-label="Loading proposals"
      data-testid="proposal-list-loading"
      className="space-y-2"
    >
      {[0, 1, 2, 3, 4].map((row) => (
        <div key={row} className="h-14 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />
      ))}
    </div>
  );
}
