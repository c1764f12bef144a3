import type { Metadata } from 'next';
import { getDb } from '@/db';
import { QueueList } from '@/components/queue-list';
import { dashboardContext } from '@/lib/dashboard/context';
import { pendingQueue } from '@/lib/proposals/queue';

export const metadata: Metadata = { title: 'Queue' };

export default async function QueuePage() {
  const context = await dashboardContext('/');
  if (!context.tenantId) return null;
  const initial = await pendingQueue(await getDb(), context.tenantId);
  return (
    <section aria-labelledby="queue-heading">
      <h1 id="queue-heading" className="mb-4 text-xl font-semibold">Pending approval</h1>
      <QueueList tenantId={context.tenantId} initial={initial} />
    </section>
  );
}
