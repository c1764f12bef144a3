import { z } from 'zod';
import { segment, type SystemsClient } from '@/lib/systems/client';

/** The inventory system's catalog record, as `GET /skus/:sku` returns it. */
export const skuRecord = z.object({
  sku: z.string(),
  tenant: z.string(),
  warehouse: z.string(),
  maxHold: z.int().min(0),
  holds: z.array(z.object({ id: z.string(), quantity: z.int(), warehouse: z.string(), idempotencyKey: z.string(), createdAt: z.string() })),
});

export function readSku(systems: SystemsClient, sku: string) {
  return systems.read(`/skus/${segment(sku)}`, skuRecord, 'inventory');
}
