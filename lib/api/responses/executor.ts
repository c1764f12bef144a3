import { z } from 'zod';
import type { ExecutionAnswer } from '@/lib/commands/execute';
import { storedReceiptSchema } from './proposals';

/** `POST /api/executor/{scope}`: the compact JWS of a signed command, as posted (docs/design.md §7). */
export const signedCommandSchema = z
  .string()
  .describe(
    'A compact JWS (three base64url parts), EdDSA-signed, of type `countersign-command+jwt`, as the worker posts it.',
  );

/** `POST /api/executor/{scope}`: the recorded outcome of the command, the first time or as a replay. */
export const executionAnswerSchema = z.object({
  execution: z.object({
    status: z.enum(['succeeded', 'failed', 'outcome_unknown']),
    commandId: z.string(),
    proposalId: z.string(),
    receipt: storedReceiptSchema.optional().describe('`succeeded`: what the system of record answered.'),
    errorCode: z.string().optional(),
    reason: z.string().optional(),
  }),
});

// The executor answers ExecutionAnswer: it must fit the schema, field for field (the type check fails when it stops
// fitting).
type Documented = z.infer<typeof executionAnswerSchema>['execution'];
const answerFits: ExecutionAnswer extends Documented
  ? [Exclude<keyof ExecutionAnswer, keyof Documented>] extends [never]
    ? true
    : never
  : never = true;
void answerFits;
