import { z } from 'zod';
import { CURRENCY_CODES } from '@/lib/money';

export const issueRefundArgsV1 = z.strictObject({
  orderId: z.string().regex(/^ord_[A-Za-z0-9]{1,32}$/),
  amountMinor: z.int().min(1),
  currency: z.enum(CURRENCY_CODES),
  reason: z.string().min(1).max(500),
});

export type IssueRefundArgsV1 = z.infer<typeof issueRefundArgsV1>;

/** The executor's receipt from the payments system: validated against the request too. */
export const refundReceipt = z.strictObject({
  id: z.string().regex(/^re_[A-Za-z0-9_-]{1,64}$/),
  orderId: z.string().regex(/^ord_[A-Za-z0-9]{1,32}$/),
  amountMinor: z.int().min(1),
  currency: z.string().regex(/^[A-Z]{3}$/),
  idempotencyKey: z.string().min(1).max(128),
  createdAt: z.iso.datetime(),
});
