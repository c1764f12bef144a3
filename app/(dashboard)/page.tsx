import type { Metadata } from 'next';
import { QueueList } from '@/components/queue-list';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import { pendingQueue, queueFilterChoices, queueViewFromSearch, queueViewSearch } from '@/lib/proposals/queue';

export const metadata: Metadata = { title: 'Queue' };

/**
 * The queue; `?group=needs-you|waiting|all&action=&agent=&risk=&sort=` choose the view (anything
 * invalid falls back to its default). The groups are as this person's role sees them.
 */
export default async function QueuePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const search = await searchParams;
  const view = queueViewFromSearch(search);
  const context = await dashboardContext(`/${queueViewSearch(view)}`);
  if (!context.tenantId) return null;
  const db = await getDb();
  const viewer = { userId: context.operator.userId, role: context.role };
  const [initial, choices] = await Promise.all([
    pendingQueue(db, context.tenantId, viewer, view),
    queueFilterChoices(db, context.tenantId),
  ]);
  return (
    <section aria-labelledby="queue-heading">
      <h1 id="queue-heading" className="mb-2 text-lg font-semibold">
        Pending approval
      </h1>
      <QueueList
        key={`${context.tenantId}${queueViewSearch(view)}`}
        tenantId={context.tenantId}
        view={view}
        initial={initial}
        actions={choices.actions}
        agents={choices.agents}
        canDecide={context.role !== 'viewer'}
      />
    </section>
  );
}
