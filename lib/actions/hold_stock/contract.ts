import { z } from 'zod';

export const holdStockArgsV1 = z.strictObject({
  sku: z.string().min(1).max(40),
  quantity: z.int().min(1).max(4),
});

export type HoldStockArgsV1 = z.infer<typeof holdStockArgsV1>;

/** The executor's receipt from the inventory system: validated against the request too. */
export const holdReceipt = z.strictObject({
  id: z.string().regex(/^hold_[A-Za-z0-9_-]{1,64}$/),
  sku: z.string().min(1).max(40),
  quantity: z.int().min(1),
  warehouse: z.string().min(1).max(40),
  idempotencyKey: z.string().min(1).max(128),
  createdAt: z.iso.datetime(),
});
