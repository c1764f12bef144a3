import { z } from 'zod';
import { requestIdSchema } from '@/lib/ids';

export const MAX_EVIDENCE_REFS = 20;

/** The closed envelope of docs/design.md §4; args are checked afterwards against the action's contract. */
export const envelopeSchema = z.strictObject({
  requestId: requestIdSchema,
  action: z.string().min(1).max(64),
  contractVersion: z.int().min(1),
  args: z.record(z.string(), z.unknown()),
  evidenceRefs: z.array(z.string().min(1).max(128)).max(MAX_EVIDENCE_REFS).default([]),
  repairOf: requestIdSchema.optional(),
});

export type Envelope = z.infer<typeof envelopeSchema>;
