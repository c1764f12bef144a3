import { z } from 'zod';

export const holdStockArgsV1 = z.strictObject({
  sku: z.string().min(1).max(40),
  quantity: z.int().min(1).max(4),
});

export type HoldStockArgsV1 = z.infer<typeof holdStockArgsV1>;
