import 'server-only';
import type { Proposal } from '@/db/schema';
import type { ProposalView } from '@/lib/decisions/proposal-view';
import type { DecisionRow } from '@/lib/proposals/decision-rows';
import type { ExecutionState } from '@/lib/proposals/execution-state';
import { routingContext, wordingOf } from '@/lib/proposals/wording';
import type {
  AgentProposalDetail,
  AgentProposalView,
  OperatorProposalDetail,
  OperatorProposalView,
  ProposalSummary,
} from './proposals';

function summaryOf(proposal: Proposal): string {
  return wordingOf(proposal).summary;
}

/** The proposal as the agent API returns it (docs/design.md §4). */
export function proposalSummary(proposal: Proposal, origin: string): ProposalSummary {
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

/**
 * The full proposal; operators also see the raw candidate and, once minted, the command. Without
 * `state` (callers that just changed a pending proposal) there is no execution or command yet.
 */
export function proposalDetail(
  proposal: Proposal,
  decisions: DecisionRow[],
  origin: string,
  audience: 'agent' | 'operator',
  state: ExecutionState = { execution: null, command: null },
) {
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
    routingContext: routingContext(proposal),
    decisions: decisions.map((d) => ({
      decision: d.decision,
      by: audience === 'operator' ? { id: d.userId, name: d.userName } : undefined,
      reason: d.reason,
      at: d.createdAt.toISOString(),
      ...(d.withdrawn
        ? { withdrawn: { at: d.withdrawn.at.toISOString(), reason: d.withdrawn.reason, role: d.withdrawn.role } }
        : {}),
    })),
    ...(proposal.grantId ? { grantId: proposal.grantId } : {}),
    execution: state.execution,
  } satisfies AgentProposalDetail;
  if (audience === 'agent') return detail;
  // Flags stay with operators: the agent is the party whose text they read, and naming what tripped
  // them would teach it to write around them.
  return {
    ...detail,
    flags: proposal.flags,
    evidence: proposal.evidence,
    rawCandidate: proposal.rawCandidate,
    command: state.command,
  } satisfies OperatorProposalDetail;
}

/** `GET /api/v1/proposals/:id`: the detail, and for an operator what they may do with it (`viewer`). */
export function proposalViewJson(view: ProposalView, origin: string, audience: 'agent' | 'operator') {
  const detail = {
    ...proposalDetail(view.proposal, view.decisions, origin, audience, view.state),
    reproposal: view.reproposal,
  };
  if (audience === 'operator' && view.viewer && 'rawCandidate' in detail)
    return { ...detail, viewer: view.viewer } satisfies OperatorProposalView;
  return detail satisfies AgentProposalView;
}
