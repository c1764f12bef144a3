import { z } from 'zod';
import { segment, type SystemsClient } from '@/lib/systems/client';

/** The payments system's order, as `GET /orders/:id` returns it. */
export const orderRecord = z.object({
  id: z.string(),
  tenant: z.string(),
  currency: z.string(),
  chargedMinor: z.int().min(0),
  refundedMinor: z.int().min(0),
  refunds: z.array(z.object({ id: z.string(), amountMinor: z.int(), idempotencyKey: z.string(), createdAt: z.string() })),
});

export function readOrder(systems: SystemsClient, orderId: string) {
  return systems.read(`/orders/${segment(orderId)}`, orderRecord, 'payments');
}
