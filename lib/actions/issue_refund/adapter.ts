import { z } from 'zod';
import { lookupByIdempotencyKey, type SystemsClient, type SystemsWriteClient, segment } from '@/lib/systems/client';

/** The payments system's order, as `GET /orders/:id` returns it. */
export const orderRecord = z.object({
  id: z.string(),
  tenant: z.string(),
  currency: z.string(),
  chargedMinor: z.int().min(0),
  refundedMinor: z.int().min(0),
  refunds: z.array(
    z.object({ id: z.string(), amountMinor: z.int(), idempotencyKey: z.string(), createdAt: z.string() }),
  ),
});

export function readOrder(systems: SystemsClient, orderId: string) {
  return systems.read(`/orders/${segment(orderId)}`, orderRecord, 'payments');
}

/** The refund the command asks for: `POST /refunds` with the payments credential. */
export function writeRefund(
  client: SystemsWriteClient,
  body: { orderId: string; amountMinor: number; currency: string; idempotencyKey: string },
  signal: AbortSignal,
) {
  return client.write('/refunds', body, { signal });
}

/** Reconciliation: the refund committed under this key, if any. */
export function lookupRefund(client: SystemsWriteClient, idempotencyKey: string) {
  return lookupByIdempotencyKey(client, 'refunds', idempotencyKey);
}
