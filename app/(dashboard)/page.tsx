import type { Metadata } from 'next';
import { getDb } from '@/db';
import { QueueList } from '@/components/queue-list';
import { dashboardContext } from '@/lib/dashboard/context';
import { pendingQueue, queueFilterChoices, queueViewFromSearch, queueViewSearch } from '@/lib/proposals/queue';

export const metadata: Metadata = { title: 'Queue' };

/** The queue; `?action=&agent=&risk=&sort=` choose the view (anything invalid falls back to its default). */
export default async function QueuePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const context = await dashboardContext('/');
  if (!context.tenantId) return null;
  const view = queueViewFromSearch(await searchParams);
  const db = await getDb();
  const [initial, choices] = await Promise.all([pendingQueue(db, context.tenantId, view), queueFilterChoices(db, context.tenantId)]);
  return (
    <section aria-labelledby="queue-heading">
      <h1 id="queue-heading" className="mb-4 text-xl font-semibold">Pending approval</h1>
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
