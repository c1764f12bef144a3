import { z } from 'zod';
import type { Proposal } from '@/db/schema';
import type { Refusal } from '@/lib/errors/refusal';
import type { FieldIssue } from '@/lib/input/field-issues';

/** What a proposal tool returns: enough to follow the proposal, nothing of its payload. */
export const proposalResultSchema = z.strictObject({
  proposalId: z.string(),
  status: z.string(),
  payloadHash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  reviewUrl: z.url(),
});

export type ProposalResult = z.infer<typeof proposalResultSchema>;

/**
 * A tool's answer as MCP carries it (CallToolResult), structured content mirrored as text for clients that read only
 * text.
 */
export type ToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

export function structuredResult(value: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

export function proposalResult(proposal: Pick<Proposal, 'id' | 'status' | 'payloadHash'>, origin: string): ToolResult {
  const result: ProposalResult = {
    proposalId: proposal.id,
    status: proposal.status,
    payloadHash: proposal.payloadHash,
    reviewUrl: `${origin}/proposals/${proposal.id}`,
  };
  return structuredResult(result);
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

type RepairAdvice = { allowed?: boolean; attemptsLeft?: number };

function repairLine(repair: RepairAdvice | undefined, requestId: string | undefined): string | undefined {
  if (!repair) return undefined;
  if (repair.allowed === false)
    return 'Repair: no repairs are left for this request; do not retry it. An operator can see the chain.';
  const left =
    typeof repair.attemptsLeft === 'number'
      ? `${repair.attemptsLeft} repair${repair.attemptsLeft === 1 ? '' : 's'} left`
      : 'repairs are allowed';
  const target = requestId ? `repairOf "${requestId}"` : 'repairOf set to the refused requestId';
  return `Repair: call again with the fields corrected, a new requestId and ${target} (${left}).`;
}

/**
 * One field's problem on one line, naming it once: what was expected and what came, plus what
 * intake's message adds beyond that (it mostly says the same again, naming the field a second time).
 */
function issueLine(issue: FieldIssue): string {
  const said = `- ${issue.field}: expected ${issue.expected}; received ${issue.received}`;
  if (issue.code === 'unknown_field') return `${said}; remove it.`;
  if (issue.message.includes(issue.expected) && issue.message.includes(issue.field)) return `${said}.`;
  return `${said}. ${issue.message}`;
}

/**
 * A refusal as a tool error a model can act on: the code, the reason, each field with what was
 * expected and what came (intake's issues, which never echo argument text), and the repair advice.
 */
export function refusalResult(error: Refusal, requestId?: string): ToolResult {
  const issues = (error.details.issues as FieldIssue[] | undefined) ?? [];
  const lines = [
    `Refused: ${error.code} (${error.kind}). ${error.message}`,
    ...issues.map(issueLine),
    repairLine(error.details.repair as RepairAdvice | undefined, requestId),
  ];
  return errorResult(lines.filter((line) => line !== undefined).join('\n'));
}
