import type { Metadata } from 'next';
import Link from 'next/link';
import { getDb } from '@/db';
import { PayloadText } from '@/components/payload-text';
import { Cell, Table } from '@/components/table';
import { absoluteTime } from '@/components/time';
import { auditPage } from '@/lib/audit/queries';
import { dashboardContext } from '@/lib/dashboard/context';
import { parseSequence } from '@/lib/paging/fields';

export const metadata: Metadata = { title: 'History' };

export default async function HistoryPage({ searchParams }: { searchParams: Promise<{ before?: string | string[] }> }) {
  const { before } = await searchParams;
  const context = await dashboardContext('/history');
  if (!context.tenantId) return null;
  const beforeSeq = parseSequence(typeof before === 'string' ? before : undefined);
  const page = await auditPage(await getDb(), context.tenantId, beforeSeq);
  return (
    <section aria-labelledby="history-heading" className="space-y-4">
      <h1 id="history-heading" className="text-xl font-semibold">History</h1>
      <p className="text-sm text-zinc-500">Every event in {context.tenantName}&apos;s hash-chained evidence trail, newest first. Chain verification and exports arrive with the evidence-trail work.</p>
      {page.items.length === 0 ? (
        <p data-testid="history-empty" className="rounded-lg border border-dashed border-zinc-300 p-8 text-center dark:border-zinc-700">No events yet.</p>
      ) : (
        <Table head={['#', 'Time (UTC)', 'Actor', 'Event', 'Proposal', 'Hash', 'Reason']} testId="history-table">
          {page.items.map((event) => (
            <tr key={event.seq}>
              <Cell mono>{event.seq}</Cell>
              <Cell>{absoluteTime(new Date(event.occurredAt))}</Cell>
              <Cell>{event.actorType} <span className="text-xs"><PayloadText value={event.actorId} /></span></Cell>
              <Cell>{event.type}</Cell>
              <Cell mono>{event.proposalId ? <Link className="underline" href={`/proposals/${event.proposalId}`}>{event.proposalId}</Link> : '—'}</Cell>
              <Cell mono><span title={event.payloadHash ?? ''}>{event.payloadHash ? `${event.payloadHash.slice(0, 15)}…` : '—'}</span></Cell>
              <Cell mono>{event.reasonCode ?? '—'}</Cell>
            </tr>
          ))}
        </Table>
      )}
      {page.nextBefore ? <Link data-testid="history-older" className="underline" href={`/history?before=${page.nextBefore}`}>Older events →</Link> : null}
    </section>
  );
}
