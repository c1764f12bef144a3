import { z } from 'zod';
import { lookupByIdempotencyKey, type SystemsClient, type SystemsWriteClient, segment } from '@/lib/systems/client';

/** The inventory system's catalog record, as `GET /skus/:sku` returns it. */
export const skuRecord = z.object({
  sku: z.string(),
  tenant: z.string(),
  warehouse: z.string(),
  maxHold: z.int().min(0),
  holds: z.array(
    z.object({
      id: z.string(),
      quantity: z.int(),
      warehouse: z.string(),
      idempotencyKey: z.string(),
      createdAt: z.string(),
    }),
  ),
});

export function readSku(systems: SystemsClient, sku: string) {
  return systems.read(`/skus/${segment(sku)}`, skuRecord, 'inventory');
}

/** The hold the command asks for: `POST /holds` with the inventory credential. */
export function writeHold(
  client: SystemsWriteClient,
  body: { sku: string; quantity: number; warehouse: string; idempotencyKey: string },
  signal: AbortSignal,
) {
  return client.write('/holds', body, { signal });
}

/** Reconciliation: the hold committed under this key, if any. */
export function lookupHold(client: SystemsWriteClient, idempotencyKey: string) {
  return lookupByIdempotencyKey(client, 'holds', idempotencyKey);
}
