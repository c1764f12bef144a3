'use client';

import Link from 'next/link';
import {
  countText,
  GROUP_LABELS,
  QUEUE_GROUPS,
  type QueueCounts,
  type QueueGroup,
  type QueueView,
  queueViewSearch,
} from '@/lib/shared/queue-view';

/**
 * Needs you · Waiting on others · Everything, each with its count under the current filters ("1000+"
 * when the queue is longer than what is counted). They are links (the group is in the URL, so a
 * view can be shared); a click navigates in place.
 */
export function QueueTabs({
  view,
  counts,
  exact,
  onChange,
}: {
  view: QueueView;
  counts: QueueCounts;
  exact: boolean;
  onChange: (group: QueueGroup) => void;
}) {
  return (
    <nav aria-label="Queue groups" className="-mb-px flex min-w-0 gap-x-1 overflow-x-auto">
      {QUEUE_GROUPS.map((group) => {
        const current = group === view.group;
        return (
          <Link
            key={group}
            href={`/${queueViewSearch({ ...view, group })}`}
            aria-current={current ? 'page' : undefined}
            data-testid={`queue-group-${group}`}
            data-count={counts[group]}
            onClick={(event) => {
              if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
              event.preventDefault();
              onChange(group);
            }}
            className={
              'whitespace-nowrap rounded-t-md border-b-2 px-2.5 py-2 text-sm sm:px-3 focus-visible:outline-2 ' +
              'focus-visible:outline-blue-600 ' +
              (current
                ? 'border-blue-700 font-semibold text-zinc-900 dark:border-blue-400 dark:text-zinc-100'
                : 'border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100')
            }
          >
            {GROUP_LABELS[group]} · {countText(counts[group], exact)}
          </Link>
        );
      })}
    </nav>
  );
}
