import { z } from 'zod';

export const MAX_EVIDENCE_REFS = 20;

const token = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/);

/** The closed envelope of docs/design.md §4; args are checked afterwards against the action's contract. */
export const envelopeSchema = z.strictObject({
  requestId: token,
  action: z.string().min(1).max(64),
  contractVersion: z.int().min(1),
  args: z.record(z.string(), z.unknown()),
  evidenceRefs: z.array(z.string().min(1).max(128)).max(MAX_EVIDENCE_REFS).default([]),
  repairOf: token.optional(),
});

export type Envelope = z.infer<typeof envelopeSchema>;
