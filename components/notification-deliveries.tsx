'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { DeliveryChip } from '@/components/status-chip';
import { LocalTime } from '@/components/time';
import { valueOrThrow } from '@/lib/client/operator-api';
import { retryDelivery, type DeliveryView } from '@/lib/client/notifications-api';
import { NOTIFICATIONS_KEY } from './notification-channels';
import { ProblemText } from './notification-ui';
import { Button } from './ui/button';

function RetryButton({ delivery }: { delivery: DeliveryView }) {
  const client = useQueryClient();
  const retry = useMutation({
    mutationFn: async () => valueOrThrow(await retryDelivery(delivery.id)),
    onSettled: () => client.invalidateQueries({ queryKey: NOTIFICATIONS_KEY }),
  });
  return (
    <div className="space-y-1">
      <Button variant="secondary" data-testid="delivery-retry" disabled={retry.isPending} onClick={() => retry.mutate()}>
        {retry.isPending ? 'Retrying…' : 'Retry'}
      </Button>
      <ProblemText error={retry.error} testId="delivery-retry-error" />
    </div>
  );
}

const HEAD = ['Event', 'Channel', 'Status', 'Attempts', 'Latency', 'Last error', 'Created', 'Next attempt'] as const;

/** One cell: a table cell from `md` up; below, a labelled line of the delivery's card. */
function Cell({ label, children, mono = false }: { label: (typeof HEAD)[number] | 'Action'; children: ReactNode; mono?: boolean }) {
  return (
    <td className={`${children == null ? 'hidden' : 'flex'} gap-3 px-3 py-1 align-top md:table-cell md:py-2 ${mono ? 'font-mono text-xs' : ''}`}>
      <span className="w-24 shrink-0 font-sans text-xs uppercase tracking-wide text-zinc-500 md:hidden">{label === 'Action' ? '' : label}</span>
      <span className="min-w-0">{children}</span>
    </td>
  );
}

/** The tenant's last 50 deliveries, newest first; dead ones can be sent again. A table on wide screens, cards on a phone. */
export function NotificationDeliveries({ deliveries }: { deliveries: DeliveryView[] }) {
  if (deliveries.length === 0) {
    return (
      <p data-testid="deliveries-empty" className="rounded-lg border border-dashed border-zinc-300 p-6 text-center text-sm dark:border-zinc-700">
        No deliveries yet. Send a test from a channel above, or wait for the next proposal.
      </p>
    );
  }
  return (
    <div className="rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <table className="block w-full text-left text-sm md:table" data-testid="deliveries">
        <thead className="hidden bg-zinc-100 text-xs uppercase tracking-wide text-zinc-600 md:table-header-group dark:text-zinc-400 dark:bg-zinc-800">
          <tr>
            {HEAD.map((h) => <th key={h} scope="col" className="px-3 py-2 font-medium">{h}</th>)}
            <th scope="col" className="px-3 py-2 font-medium"><span className="sr-only">Action</span></th>
          </tr>
        </thead>
        <tbody className="block divide-y divide-zinc-100 md:table-row-group dark:divide-zinc-800">
          {deliveries.map((delivery) => (
            <tr key={delivery.id} data-testid="delivery" data-delivery-id={delivery.id} data-event={delivery.event} data-status={delivery.status} className="block py-2 md:table-row md:py-0">
              <Cell label="Event">
                <span className="font-mono text-xs">{delivery.event}</span>
                {delivery.proposalId ? (
                  <Link href={`/proposals/${encodeURIComponent(delivery.proposalId)}`} className="block font-mono text-xs underline">{delivery.proposalId}</Link>
                ) : null}
              </Cell>
              <Cell label="Channel">
                <span className="text-xs uppercase tracking-wide text-zinc-500">{delivery.channelKind}</span>
                <span className="block break-all font-mono text-xs md:max-w-56">{delivery.channelTarget}</span>
              </Cell>
              <Cell label="Status"><DeliveryChip status={delivery.status} /></Cell>
              <Cell label="Attempts" mono>{delivery.attempts}</Cell>
              <Cell label="Latency" mono><span data-testid="delivery-latency">{delivery.latencyMs !== null ? `${delivery.latencyMs} ms` : '—'}</span></Cell>
              <Cell label="Last error" mono>
                <span data-testid="delivery-error">{delivery.lastError ?? '—'}</span>
                {delivery.lastError && delivery.lastStatus !== null ? <span className="block text-zinc-500">HTTP {delivery.lastStatus}</span> : null}
              </Cell>
              <Cell label="Created"><LocalTime value={delivery.createdAt} /></Cell>
              <Cell label="Next attempt">{delivery.nextAttemptAt ? <LocalTime value={delivery.nextAttemptAt} testId="delivery-next" /> : '—'}</Cell>
              <Cell label="Action">{delivery.status === 'dead' ? <RetryButton delivery={delivery} /> : null}</Cell>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
