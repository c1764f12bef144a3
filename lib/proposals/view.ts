import type { Proposal } from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import type { DecisionRow } from './queries';

function summaryOf(proposal: Proposal): string {
  const action = findAction(proposal.action);
  const args = (proposal.payload as { args: Record<string, unknown> }).args;
  return action ? action.summarize(args, proposal.facts) : proposal.action;
}

/** The proposal as the agent API returns it (DESIGN.md §4). */
export function proposalSummary(proposal: Proposal, origin: string) {
  return {
    id: proposal.id,
    status: proposal.status,
    action: proposal.action,
    contractVersion: proposal.contractVersion,
    payloadHash: proposal.payloadHash,
    createdAt: proposal.createdAt.toISOString(),
    expiresAt: proposal.expiresAt.toISOString(),
    links: { self: `${origin}/api/v1/proposals/${proposal.id}`, review: `${origin}/proposals/${proposal.id}` },
  };
}

/** The full proposal; operators also see the raw candidate and, once minted, the command. */
export function proposalDetail(proposal: Proposal, decisions: DecisionRow[], origin: string, audience: 'agent' | 'operator') {
  const detail = {
    ...proposalSummary(proposal, origin),
    summary: summaryOf(proposal),
    agent: proposal.agentName,
    requestId: proposal.requestId,
    parentId: proposal.parentId,
    statusReason: proposal.statusReason,
    decidedAt: proposal.decidedAt?.toISOString() ?? null,
    payload: proposal.payload,
    gates: proposal.gates,
    facts: proposal.facts,
    risk: proposal.risk,
    routing: proposal.routing,
    decisions: decisions.map((d) => ({
      decision: d.decision,
      by: audience === 'operator' ? { id: d.userId, name: d.userName } : undefined,
      reason: d.reason,
      at: d.createdAt.toISOString(),
    })),
    execution: null,
  };
  if (audience === 'agent') return detail;
  return { ...detail, evidence: proposal.evidence, rawCandidate: proposal.rawCandidate, command: null };
}
