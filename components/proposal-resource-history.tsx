import Link from 'next/link';
import type { ResourceProposal } from '@/lib/proposals/resource-history';
import { PayloadText } from './payload-text';
import { StatusChip } from './status-chip';
import { Time } from './time';

/** "Other proposals on ord_1842": the last ten on the same resource, any status, newest first. */
export function ProposalResourceHistory({
  resource,
  items,
  now,
}: {
  resource: string;
  items: ResourceProposal[];
  now: Date;
}) {
  return (
    <section
      aria-labelledby="resource-history"
      className="rounded-lg border border-zinc-200 bg-white p-4 text-sm dark:border-zinc-800 dark:bg-zinc-900"
      data-testid="resource-history"
    >
      <h2 id="resource-history" className="mb-2 font-semibold">
        Other proposals on <PayloadText value={resource} />
      </h2>
      {items.length === 0 ? (
        <p data-testid="resource-history-empty" className="text-zinc-600 dark:text-zinc-400">
          No other proposals on <PayloadText value={resource} />.
        </p>
      ) : (
        <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
          {items.map((item) => (
            <li
              key={item.id}
              data-testid="resource-history-item"
              data-proposal-id={item.id}
              className="flex flex-wrap items-center gap-x-3 gap-y-1 py-1.5"
            >
              <StatusChip status={item.status} testId="resource-history-status" />
              <Link
                href={`/proposals/${encodeURIComponent(item.id)}`}
                data-testid="resource-history-link"
                className={
                  'min-w-[12rem] flex-1 font-medium underline-offset-2 hover:underline focus-visible:outline-2 ' +
                  'focus-visible:outline-blue-600'
                }
              >
                <PayloadText value={item.summary} mono={false} />
              </Link>
              <span className="text-zinc-600 dark:text-zinc-400">
                <PayloadText value={item.agent} mono={false} /> · <Time value={item.createdAt} now={now} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
