import { z } from 'zod';
import { FLAG_KINDS } from '@/db/proposal-flags';
import { proposalStatusEnum, roleEnum } from '@/db/schema';
import { FRESH_STATES, type FreshFacts } from '@/lib/proposals/fresh-facts';

/**
 * The proposal answers of the agent API (docs/design.md §4) and the operator API (§12). The builders in
 * lib/api/responses/proposal-json.ts return these types, and the OpenAPI document is generated from these
 * schemas, so neither can drift from the other unnoticed.
 */

const timestamp = z.iso.datetime({ offset: true });

export const proposalStatusSchema = z.enum(proposalStatusEnum.enumValues);

/** `POST /api/v1/proposals`: the proposal as created (201) or as it was for a retry (200). */
export const proposalSummarySchema = z.object({
  id: z.string(),
  status: proposalStatusSchema,
  action: z.string(),
  contractVersion: z.int(),
  payloadHash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  createdAt: timestamp,
  expiresAt: timestamp,
  links: z.object({ self: z.url(), review: z.url() }),
});

export const proposalCreatedSchema = z.object({ proposal: proposalSummarySchema });

/** The normalized payload (docs/design.md §5): exactly what is hashed, signed and executed. */
const payloadSchema = z.object({
  action: z.string(),
  contractVersion: z.int(),
  tenantId: z.string(),
  args: z.record(z.string(), z.unknown()),
  evidenceRefs: z.array(z.string()),
});

const gateResultSchema = z.object({
  gate: z.string(),
  ok: z.boolean(),
  code: z.string().optional(),
  detail: z.string().optional(),
});

export const routingSchema = z.object({
  rule: z.string(),
  policyVersion: z.int(),
  outcome: z.enum(['auto_approve', 'needs_approval', 'deny']),
  approvals: z.int(),
  role: z.enum(['approver', 'admin']),
  aggregate: z
    .object({
      field: z.string(),
      windowHours: z.number(),
      priorCount: z.int(),
      priorSum: z.number(),
      total: z.number(),
    })
    .optional(),
});

const decisionSchema = z.object({
  decision: z.enum(['approve', 'reject']),
  by: z.object({ id: z.string(), name: z.string() }).optional().describe('Operators only: who decided.'),
  reason: z.string().nullable(),
  at: timestamp,
  withdrawn: z
    .object({
      at: timestamp,
      reason: z.enum(['role_changed', 'removed']),
      role: z.enum(['viewer', 'approver', 'admin']).nullable(),
    })
    .optional()
    .describe(
      "An approval that no longer counts: its approver's role dropped below the rule's (`role` is the new one) " +
        'or they were removed, while the proposal waited.',
    ),
});

/**
 * A stored receipt, passed through as recorded: the executor checked it against the action's
 * receipt schema before recording it. The OpenAPI document names those schemas here (lib/api/openapi/actions.ts).
 */
export const storedReceiptSchema = z.unknown();

const executionSchema = z.object({
  status: z.string(),
  attempts: z.int(),
  receipt: storedReceiptSchema.nullable(),
  errorCode: z.string().nullable(),
  nextCheckAt: timestamp.nullable(),
  updatedAt: timestamp,
  checks: z.array(
    z.object({ at: timestamp, attempt: z.int().nullable(), outcome: z.string(), reason: z.string().nullable() }),
  ),
});

export const flagSchema = z.object({
  kind: z.enum(FLAG_KINDS),
  label: z.string(),
  detail: z.string(),
});

const commandSchema = z.object({
  id: z.string(),
  scope: z.string(),
  jws: z.string(),
  expiresAt: timestamp,
  consumedAt: timestamp.nullable(),
  claims: z.record(z.string(), z.unknown()).nullable(),
});

/** The full proposal as an agent reads it. */
export const agentProposalDetailSchema = proposalSummarySchema.extend({
  summary: z.string(),
  agent: z.string(),
  requestId: z.string().nullable(),
  parentId: z.string().nullable(),
  statusReason: z.string().nullable(),
  decidedAt: timestamp.nullable(),
  payload: payloadSchema,
  gates: z.array(gateResultSchema),
  facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  risk: z.string(),
  routing: routingSchema,
  routingContext: z.string().nullable(),
  decisions: z.array(decisionSchema),
  grantId: z
    .string()
    .optional()
    .describe('Present when a standing grant approved it instead of a person (docs/grants.md): its `g_…` id.'),
  execution: executionSchema.nullable(),
});

/** An operator also sees the flags, the evidence, the raw candidate and, once minted, the command. */
export const operatorProposalDetailSchema = agentProposalDetailSchema.extend({
  flags: z.array(flagSchema),
  evidence: z.array(z.object({ id: z.string(), kind: z.string(), text: z.string() })),
  rawCandidate: z.string(),
  command: commandSchema.nullable(),
});

export const reproposalSchema = z.object({ requestedAt: timestamp, reason: z.string(), note: z.string().nullable() });

/** What one operator may do with the proposal (lib/decisions/viewer-rights.ts `viewerRights`). */
const viewerRightsSchema = z.object({
  role: z.enum(roleEnum.enumValues),
  mayDecide: z.boolean(),
  hasDecided: z.boolean(),
  initiator: z.boolean(),
  canReject: z.boolean(),
  canApprove: z.boolean(),
  canExtend: z.boolean(),
  extendByHours: z.number(),
  canEdit: z.boolean(),
});

/** `GET /api/v1/proposals/:id` with an agent key. */
export const agentProposalViewSchema = agentProposalDetailSchema.extend({ reproposal: reproposalSchema.nullable() });

/** `GET /api/v1/proposals/:id` with a session. */
export const operatorProposalViewSchema = operatorProposalDetailSchema.extend({
  reproposal: reproposalSchema.nullable(),
  viewer: viewerRightsSchema,
});

/** `POST /api/v1/proposals/:id/repropose-request`. */
export const reproposalCreatedSchema = z.object({ reproposal: reproposalSchema });

const factsSnapshotSchema = z.object({
  detail: z.string().nullable().describe('The facts in words, or null when not known.'),
  facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});

/** `POST /api/v1/proposals/:id/recheck`: the facts at proposal beside the facts now (lib/proposals/fresh-facts.ts). */
export const freshFactsSchema = z.object({
  proposalId: z.string(),
  state: z
    .enum(FRESH_STATES)
    .describe(
      'fresh: nothing moved; changed: moved but still holds; stale: no longer holds (now ended stale); ' +
        'unavailable: the system of record did not answer in time; closed: not pending, nothing read.',
    ),
  checkedAt: timestamp,
  atProposal: factsSnapshotSchema.extend({ at: timestamp }),
  now: factsSnapshotSchema.nullable(),
  note: z.string().nullable().describe('What moved, why it no longer holds, or what could not be read, in words.'),
}) satisfies z.ZodType<FreshFacts>;

export type ProposalSummary = z.infer<typeof proposalSummarySchema>;
export type ProposalCreated = z.infer<typeof proposalCreatedSchema>;
export type ReproposalCreated = z.infer<typeof reproposalCreatedSchema>;
export type AgentProposalDetail = z.infer<typeof agentProposalDetailSchema>;
export type OperatorProposalDetail = z.infer<typeof operatorProposalDetailSchema>;
export type AgentProposalView = z.infer<typeof agentProposalViewSchema>;
export type OperatorProposalView = z.infer<typeof operatorProposalViewSchema>;
