import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { Database } from '@/db';
import { type Proposal, proposalStatusEnum } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { proposalViewJson } from '@/lib/api/responses/proposal-json';
import { readProposalView } from '@/lib/decisions/proposal-view';
import { notFound, Refusal } from '@/lib/errors/refusal';
import { toFieldIssues } from '@/lib/input/field-issues';
import { getProposal } from '@/lib/proposals/lookup';
import { toolSchema } from './json-schema';
import { structuredResult, type ToolResult } from './results';

export const STATUS_TOOL = 'get_proposal_status';
export const MAX_WAIT_SECONDS = 30;
/** How often a waiting call looks at the proposal again: a decision shows within this. */
const POLL_MS = 1_000;

export const statusInputSchema = z.strictObject({
  proposalId: z.string().min(1).max(128),
  waitSeconds: z.int().min(0).max(MAX_WAIT_SECONDS).optional(),
});

const decisionView = z.strictObject({
  decision: z.enum(['approve', 'reject']),
  reason: z.string().nullable(),
  at: z.string(),
});

const executionView = z.strictObject({
  status: z.string(),
  attempts: z.int(),
  receipt: z.unknown(),
  errorCode: z.string().nullable(),
  nextCheckAt: z.string().nullable(),
  updatedAt: z.string(),
  checks: z.array(
    z.strictObject({ at: z.string(), attempt: z.int().nullable(), outcome: z.string(), reason: z.string().nullable() }),
  ),
});

/** The proposal as the agent's `GET /api/v1/proposals/:id` shows it, reduced to where it stands. */
export const statusResultSchema = z.strictObject({
  proposalId: z.string(),
  status: z.enum(proposalStatusEnum.enumValues),
  statusReason: z.string().nullable(),
  pending: z.boolean(),
  decidedAt: z.string().nullable(),
  decisions: z.array(decisionView),
  execution: executionView.nullable(),
  payloadHash: z.string(),
  reviewUrl: z.url(),
});

export const statusTool = {
  name: STATUS_TOOL,
  title: 'Proposal status',
  description: [
    'Where a proposal you made stands: its status, the decisions on it and the outcome of its execution.',
    `waitSeconds (0–${MAX_WAIT_SECONDS}) waits that long at most for a pending proposal to be decided before ` +
      `answering.`,
    'A proposal is done when its status is succeeded, failed, rejected, expired, stale or cancelled; ' +
      'outcome_unknown is still being checked.',
  ].join(' '),
  inputSchema: toolSchema(statusInputSchema, 'input'),
  outputSchema: toolSchema(statusResultSchema, 'output'),
};

export type StatusInput = z.infer<typeof statusInputSchema>;

/** The tool's input, or a schema refusal naming each field (never clamped: 31 seconds is refused, not shortened). */
export function parseStatusInput(input: unknown): StatusInput {
  const parsed = statusInputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new Refusal('invalid_arguments', `The arguments do not match ${STATUS_TOOL}.`, {
    issues: toFieldIssues(parsed.error, input, statusInputSchema),
  });
}

/**
 * The key's tenant's proposal, re-read every POLL_MS while it is pending, until it is decided,
 * `waitSeconds` pass or the caller goes away; another tenant's id is not found, as in the API.
 */
export async function awaitDecision(
  db: Database,
  agent: AgentPrincipal,
  { proposalId, waitSeconds = 0 }: StatusInput,
  signal: AbortSignal,
): Promise<Proposal> {
  const deadline = Date.now() + waitSeconds * 1000;
  let proposal = await getProposal(db, agent.tenantId, proposalId);
  while (proposal?.status === 'pending_approval' && !signal.aborted) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    try {
      await sleep(Math.min(POLL_MS, left), undefined, { signal });
    } catch {
      break; // aborted: answer with what we have (nobody may be listening)
    }
    proposal = await getProposal(db, agent.tenantId, proposalId);
  }
  if (!proposal) throw notFound();
  return proposal;
}

export async function statusResult(db: Database, proposal: Proposal, origin: string): Promise<ToolResult> {
  // Read again with its execution from one snapshot, as `GET /api/v1/proposals/:id` does.
  const read = await readProposalView(db, proposal.tenantId, proposal.id);
  if (!read) throw notFound();
  const view = proposalViewJson(read, origin, 'agent');
  return structuredResult({
    proposalId: view.id,
    status: view.status,
    statusReason: view.statusReason,
    pending: view.status === 'pending_approval',
    decidedAt: view.decidedAt,
    decisions: view.decisions.map(({ decision, reason, at }) => ({ decision, reason, at })),
    execution: view.execution,
    payloadHash: view.payloadHash,
    reviewUrl: view.links.review,
  });
}
