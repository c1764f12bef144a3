import { z } from 'zod';

export const holdStockArgsV1 = z.strictObject({
  sku: z.string().min(1).max(40),
  quantity: z.int().min(1).max(4),
});

export type HoldStockArgsV1 = z.infer<typeof holdStockArgsV1>;

/**
 * v2, in shadow: catalog SKUs are lower-case slugs, so v2 narrows `sku` to that pattern. It is
 * evaluated beside v1 on every request and its verdicts recorded, to learn who it would break
 * before it becomes current.
 */
export const holdStockArgsV2 = z.strictObject({
  sku: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/),
  quantity: z.int().min(1).max(4),
});

/** The executor's receipt from the inventory system: validated against the request too. */
export const holdReceipt = z.strictObject({
  id: z.string().regex(/^hold_[A-Za-z0-9_-]{1,64}$/),
  sku: z.string().min(1).max(40),
  quantity: z.int().min(1),
  warehouse: z.string().min(1).max(40),
  idempotencyKey: z.string().min(1).max(128),
  createdAt: z.iso.datetime(),
});
