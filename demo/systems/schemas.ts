import { z } from 'zod';
import { MAX_EVIDENCE_TEXT_CHARS } from '@/lib/gates/evidence';
import { requestIdSchema } from '@/lib/ids';

/** Request bodies of the demo systems of record: closed objects, integers are integers, no coercion. */

export const idempotencyKeySchema = requestIdSchema;

const identifier = z.string().min(1).max(128);

export const refundRequestSchema = z.strictObject({
  orderId: identifier,
  amountMinor: z.int().min(1),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an upper-case ISO 4217 code such as USD'),
  idempotencyKey: idempotencyKeySchema,
});
export type RefundRequest = z.infer<typeof refundRequestSchema>;

export const holdRequestSchema = z.strictObject({
  sku: identifier,
  quantity: z.int().min(1),
  warehouse: identifier,
  idempotencyKey: idempotencyKeySchema,
});
export type HoldRequest = z.infer<typeof holdRequestSchema>;

/** `POST /__evidence` (test mode): one more evidence record, as long as Countersign reads one. */
export const evidenceRequestSchema = z.strictObject({
  id: idempotencyKeySchema,
  tenant: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be 1–64 characters of a–z, 0–9, "_" or "-", starting with a letter or digit'),
  kind: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z][a-z0-9_]*$/, 'must be 1–64 characters of a–z, 0–9 or "_", starting with a letter'),
  text: z.string().max(MAX_EVIDENCE_TEXT_CHARS),
});

export const FAULT_TARGETS = ['refunds', 'holds'] as const;
export type FaultTarget = (typeof FAULT_TARGETS)[number];

export const FAULT_MODES = [
  'timeout_after_commit',
  'timeout_before_commit',
  'malformed',
  'wrong_resource',
  'error_500',
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

export const faultRequestSchema = z.strictObject({
  target: z.enum(FAULT_TARGETS),
  mode: z.enum(FAULT_MODES),
  times: z.int().min(1).max(100).default(1),
});

const timestamp = z.iso.datetime();

/** The data file: the ledgers only (catalogs come from world.ts), versioned. */
export const stateFileSchema = z.strictObject({
  version: z.literal(1),
  refunds: z.array(
    z.strictObject({
      id: identifier,
      orderId: identifier,
      amountMinor: z.int().min(1),
      currency: z.string().regex(/^[A-Z]{3}$/),
      idempotencyKey: idempotencyKeySchema,
      createdAt: timestamp,
    }),
  ),
  holds: z.array(
    z.strictObject({
      id: identifier,
      sku: identifier,
      quantity: z.int().min(1),
      warehouse: identifier,
      idempotencyKey: idempotencyKeySchema,
      createdAt: timestamp,
    }),
  ),
});

/** Issues in words, one per field, never echoing the values that were sent. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message.slice(0, 200)}`)
    .join('; ');
}
