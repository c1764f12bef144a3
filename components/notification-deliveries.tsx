'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { DeliveryChip } from '@/components/status-chip';
import { LocalTime } from '@/components/time';
import { type DeliveryView, retryDelivery } from '@/lib/client/notifications-api';
import { valueOrThrow } from '@/lib/client/operator-api';
import { NOTIFICATIONS_KEY } from './notification-channels';
import { ProblemText } from './notification-ui';
import { Button } from './ui/button';
import { CARD_ROW, CardCell, Table } from './ui/table';

function RetryButton({ delivery }: { delivery: DeliveryView }) {
  const client = useQueryClient();
  const retry = useMutation({
    mutationFn: async () => valueOrThrow(await retryDelivery(delivery.id)),
    onSettled: () => client.invalidateQueries({ queryKey: NOTIFICATIONS_KEY }),
  });
  return (
    <div className="space-y-1">
      <Button
        variant="secondary"
        data-testid="delivery-retry"
        disabled={retry.isPending}
        onClick={() => retry.mutate()}
      >
        {retry.isPending ? 'Retrying…' : 'Retry'}
      </Button>
      <ProblemText error={retry.error} testId="delivery-retry-error" />
    </div>
  );
}

const HEAD = ['Event', 'Channel', 'Status', 'Attempts', 'Latency', 'Last error', 'Created', 'Next attempt'] as const;

/**
 * The tenant's last 50 deliveries, newest first; dead ones can be sent again. A table on wide screens, cards on a
 * phone.
 */
export function NotificationDeliveries({ deliveries }: { deliveries: DeliveryView[] }) {
  if (deliveries.length === 0) {
    return (
      <p
        data-testid="deliveries-empty"
        className="rounded-lg border border-dashed border-zinc-300 p-6 text-center text-sm dark:border-zinc-700"
      >
        No deliveries yet. Send a test from a channel above, or wait for the next proposal.
      </p>
    );
  }
  return (
    <Table cards head={[...HEAD, { label: 'Action', hidden: true }]} testId="deliveries">
      {deliveries.map((delivery) => (
        <tr
          key={delivery.id}
          data-testid="delivery"
          data-delivery-id={delivery.id}
          data-event={delivery.event}
          data-status={delivery.status}
          className={CARD_ROW}
        >
          <CardCell label="Event">
            <span className="font-mono text-xs">{delivery.event}</span>
            {delivery.proposalId ? (
              <Link
                href={`/proposals/${encodeURIComponent(delivery.proposalId)}`}
                className="block font-mono text-xs underline"
              >
                {delivery.proposalId}
              </Link>
            ) : null}
          </CardCell>
          <CardCell label="Channel">
            <span className="text-xs uppercase tracking-wide text-zinc-500">{delivery.channelKind}</span>
            <span className="block break-all font-mono text-xs md:max-w-56">{delivery.channelTarget}</span>
          </CardCell>
          <CardCell label="Status">
            <DeliveryChip status={delivery.status} />
          </CardCell>
          <CardCell label="Attempts" mono>
            {delivery.attempts}
          </CardCell>
          <CardCell label="Latency" mono>
            <span data-testid="delivery-latency">{delivery.latencyMs !== null ? `${delivery.latencyMs} ms` : '—'}</span>
          </CardCell>
          <CardCell label="Last error" mono>
            <span data-testid="delivery-error">{delivery.lastError ?? '—'}</span>
            {delivery.lastError && delivery.lastStatus !== null ? (
              <span className="block text-zinc-500">HTTP {delivery.lastStatus}</span>
            ) : null}
          </CardCell>
          <CardCell label="Created">
            <LocalTime value={delivery.createdAt} />
          </CardCell>
          <CardCell label="Next attempt">
            {delivery.nextAttemptAt ? <LocalTime value={delivery.nextAttemptAt} testId="delivery-next" /> : '—'}
          </CardCell>
          <CardCell label="">{delivery.status === 'dead' ? <RetryButton delivery={delivery} /> : null}</CardCell>
        </tr>
      ))}
    </Table>
  );
}
