'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { DeliveryChip } from '@/components/status-chip';
import { Cell, Table } from '@/components/table';
import { LocalTime } from '@/components/time';
import { valueOrThrow } from '@/lib/client/operator-api';
import { retryDelivery, type DeliveryView } from '@/lib/client/notifications-api';
import { NOTIFICATIONS_KEY } from './notification-channels';
import { ProblemText, SECONDARY_BUTTON } from './notification-ui';

function RetryButton({ delivery }: { delivery: DeliveryView }) {
  const client = useQueryClient();
  const retry = useMutation({
    mutationFn: async () => valueOrThrow(await retryDelivery(delivery.id)),
    onSettled: () => client.invalidateQueries({ queryKey: NOTIFICATIONS_KEY }),
  });
  return (
    <div className="space-y-1">
      <button type="button" data-testid="delivery-retry" disabled={retry.isPending} onClick={() => retry.mutate()} className={SECONDARY_BUTTON}>
        {retry.isPending ? 'Retrying…' : 'Retry'}
      </button>
      <ProblemText error={retry.error} testId="delivery-retry-error" />
    </div>
  );
}

/** The tenant's last 50 deliveries, newest first; dead ones can be sent again. */
export function NotificationDeliveries({ deliveries }: { deliveries: DeliveryView[] }) {
  if (deliveries.length === 0) {
    return (
      <p data-testid="deliveries-empty" className="rounded-lg border border-dashed border-zinc-300 p-6 text-center text-sm dark:border-zinc-700">
        No deliveries yet. Send a test from a channel above, or wait for the next proposal.
      </p>
    );
  }
  return (
    <Table head={['Event', 'Channel', 'Status', 'Attempts', 'Latency', 'Last error', 'Created', 'Next attempt', '']} testId="deliveries">
      {deliveries.map((delivery) => (
        <tr key={delivery.id} data-testid="delivery" data-delivery-id={delivery.id} data-event={delivery.event} data-status={delivery.status}>
          <Cell>
            <span className="font-mono text-xs">{delivery.event}</span>
            {delivery.proposalId ? (
              <Link href={`/proposals/${encodeURIComponent(delivery.proposalId)}`} className="block font-mono text-xs underline">{delivery.proposalId}</Link>
            ) : null}
          </Cell>
          <Cell>
            <span className="text-xs uppercase tracking-wide text-zinc-500">{delivery.channelKind}</span>
            <span className="block max-w-56 break-all font-mono text-xs">{delivery.channelTarget}</span>
          </Cell>
          <Cell><DeliveryChip status={delivery.status} /></Cell>
          <Cell mono>{delivery.attempts}</Cell>
          <Cell mono><span data-testid="delivery-latency">{delivery.latencyMs !== null ? `${delivery.latencyMs} ms` : '—'}</span></Cell>
          <Cell mono>
            <span data-testid="delivery-error">{delivery.lastError ?? '—'}</span>
            {delivery.lastStatus !== null ? <span className="block text-zinc-500">HTTP {delivery.lastStatus}</span> : null}
          </Cell>
          <Cell><LocalTime value={delivery.createdAt} /></Cell>
          <Cell>{delivery.nextAttemptAt ? <LocalTime value={delivery.nextAttemptAt} testId="delivery-next" /> : '—'}</Cell>
          <Cell>{delivery.status === 'dead' ? <RetryButton delivery={delivery} /> : null}</Cell>
        </tr>
      ))}
    </Table>
  );
}
