import { z } from 'zod';
import { ERROR_KINDS, WIRE_CODES } from '@/lib/errors/codes';
import type { FieldIssue } from '@/lib/input/field-issues';

/**
 * The one error body of every API route (rendered in lib/http/errors.ts): a kind (the
 * family), a specific code and words for a person, plus the extras some errors carry.
 */
export const errorKindSchema = z.enum(ERROR_KINDS);

/** One problem with a body, named by the field's own dotted name (docs/design.md §4). */
export const fieldIssueSchema = z.object({
  field: z.string(),
  code: z.string(),
  expected: z.string(),
  received: z.string(),
  message: z.string(),
}) satisfies z.ZodType<FieldIssue>;

/** Whether an agent may send a corrected request with `repairOf`, and how many times more. */
export const repairAdviceSchema = z.object({
  allowed: z.boolean(),
  attemptsLeft: z.int().min(0).optional(),
  maxRepairs: z.int().min(1).optional(),
});

// A response, not a contract: the error object stays open so a code may carry a new detail
// without breaking clients that validate against this document.
export const errorBodySchema = z.object({
  error: z.looseObject({
    kind: errorKindSchema,
    code: z
      .union([
        z.enum(WIRE_CODES),
        z
          .string()
          .regex(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/)
          .describe("A rule of the tenant's own action definition (`rule_not_met` says which, in `rule`)."),
      ])
      .describe('The specific reason, stable for programs (`idempotency_conflict`, `hash_mismatch`, …).'),
    rule: z
      .string()
      .optional()
      .describe("A declared action's rule that did not hold: its code, as `code` carries it too."),
    message: z.string().describe('What went wrong and what to do, in words for a person.'),
    issues: z.array(fieldIssueSchema).optional().describe('Every problem with the body (422 of kind `schema`).'),
    repair: repairAdviceSchema.optional().describe('Intake only: whether a repair (`repairOf`) may follow.'),
    supportedVersions: z
      .array(z.int())
      .optional()
      .describe('`unsupported_contract_version`: the versions this action accepts.'),
    retryAfterSeconds: z.int().optional().describe('`rate_limited`: as the `Retry-After` header.'),
    messages: z.array(z.string()).optional().describe('`invalid_query`: each bad parameter in words.'),
    action: z.string().optional().describe('`stale_policy`: the action whose policy moved on.'),
    currentVersion: z.int().optional().describe('`stale_policy`: its newest version now.'),
    yourVersion: z.int().optional().describe('`stale_policy`: the version that was edited.'),
  }),
});

export type ErrorKind = z.infer<typeof errorKindSchema>;
export type ErrorBody = z.infer<typeof errorBodySchema>;
