import 'server-only';
import { and, asc, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import type { Database } from '@/db';
import type { AgentProposalDetail, AgentProposalView, OperatorProposalDetail, OperatorProposalView, ProposalSummary } from '@/lib/api/responses/proposals';
import { auditEvents, commands, executions, type Proposal, type Role } from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import { roleAtLeast } from '@/lib/auth/roles';
import { grantedDuration } from '@/lib/decisions/extend';
import { initiatorsOf } from '@/lib/decisions/initiators';
import { reproposalOf, type Reproposal } from '@/lib/decisions/repropose';
import { EXECUTION_CHECKED } from '@/lib/jobs/reconcile-executions';
import { decisionsFor, type DecisionRow } from './queries';

/** Components take a proposal's status from here, never from db/. */
export type { ProposalStatus } from '@/db/schema';

/** One reconciliation check, as recorded in the evidence trail. */
export type ExecutionCheck = { at: string; attempt: number | null; outcome: string; reason: string | null };

export type ExecutionView = {
  status: string;
  attempts: number;
  receipt: unknown;
  errorCode: string | null;
  nextCheckAt: string | null;
  updatedAt: string;
  checks: ExecutionCheck[];
};

/** The signed command, for operators: its id, the compact JWS and its claims (decoded, not verified). */
export type CommandView = { id: string; scope: string; jws: string; expiresAt: string; consumedAt: string | null; claims: Record<string, unknown> | null };

export type ExecutionState = { execution: ExecutionView | null; command: CommandView | null };

function claimsOf(jws: string): Record<string, unknown> | null {
  try {
    return decodeJwt(jws) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The proposal's command, execution and reconciliation checks (each null until it exists). */
export async function executionStateFor(db: Database, tenantId: string, proposalId: string): Promise<ExecutionState> {
  const [command] = await db
    .select()
    .from(commands)
    .where(and(eq(commands.tenantId, tenantId), eq(commands.proposalId, proposalId)));
  if (!command) return { execution: null, command: null };
  const [execution] = await db.select().from(executions).where(eq(executions.commandId, command.id));
  const commandView: CommandView = {
    id: command.id,
    scope: command.scope,
    jws: command.jws,
    expiresAt: command.expiresAt.toISOString(),
    consumedAt: command.consumedAt?.toISOString() ?? null,
    claims: claimsOf(command.jws),
  };
  if (!execution) return { execution: null, command: commandView };
  const checks = await db
    .select({ occurredAt: auditEvents.occurredAt, reasonCode: auditEvents.reasonCode, data: auditEvents.data })
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.proposalId, proposalId), eq(auditEvents.type, EXECUTION_CHECKED)))
    .orderBy(asc(auditEvents.seq));
  return {
    command: commandView,
    execution: {
      status: execution.status,
      attempts: execution.attempts,
      receipt: execution.receipt ?? null,
      errorCode: execution.errorCode,
      nextCheckAt: execution.nextCheckAt?.toISOString() ?? null,
      updatedAt: execution.updatedAt.toISOString(),
      checks: checks.map((check) => ({
        at: new Date(check.occurredAt).toISOString(),
        attempt: typeof check.data.attempt === 'number' ? check.data.attempt : null,
        outcome: check.reasonCode ?? 'unknown',
        reason: typeof check.data.reason === 'string' ? check.data.reason : null,
      })),
    },
  };
}

function summaryOf(proposal: Proposal): string {
  return wordingOf(proposal).summary;
}

/** A proposal in its action's words (lib/actions/<action>); a generic fallback for an unknown action. */
export type ProposalWording = {
  /** The effect in one sentence ("Refund 49.99 USD on order ord_1842"). */
  summary: string;
  /** The approve button ("Approve refund of 49.99 USD"). */
  approveLabel: string;
  /** Words beside raw argument values ("4999" → "49.99 USD"). */
  argHints: Record<string, string>;
  /** What a receipt is called ("refund"). */
  receiptNoun: string;
};

export function wordingOf(proposal: Pick<Proposal, 'action' | 'payload' | 'facts'>): ProposalWording {
  const action = findAction(proposal.action);
  const { args } = proposal.payload;
  return {
    summary: action?.summarize(args, proposal.facts) ?? proposal.action,
    approveLabel: action?.approveLabel(args) ?? 'Approve',
    argHints: action?.argHints?.(args) ?? {},
    receiptNoun: action?.receiptNoun?.(args) ?? proposal.action.replace(/_/g, ' '),
  };
}

/** Who is looking: one member of the proposal's tenant, with their role there. */
export type Viewer = { userId: string; role: Role };

/**
 * What one operator may do with a proposal (docs/design.md §6), computed here once for the proposal
 * page and `GET /api/v1/proposals/:id`. The domain functions (decide, extendExpiry, reviseProposal)
 * check the same rules again, under lock, when the operator acts.
 */
export type ViewerRights = {
  role: Role;
  /** Their role is the one the routing rule names, or above (admins may decide too). */
  mayDecide: boolean;
  hasDecided: boolean;
  /** The agent acts for them, or they edited this proposal or a revision before it: reject only. */
  initiator: boolean;
  /** Pending, not overdue, they may decide and have not yet. */
  canReject: boolean;
  /** As canReject, and not an initiator (lib/decisions/initiators.ts). */
  canApprove: boolean;
  /** Once, before expiry, by whoever may decide it. */
  canExtend: boolean;
  /** The time an extension adds: the duration first granted, in hours. */
  extendByHours: number;
  /** Editing makes a revision: a pending proposal, by whoever may decide it. */
  canEdit: boolean;
};

export function viewerRights(
  proposal: Pick<Proposal, 'status' | 'expiresAt' | 'createdAt' | 'extendedAt' | 'routing'>,
  decisions: Pick<DecisionRow, 'userId'>[],
  viewer: Viewer,
  initiators: ReadonlySet<string>,
  now: Date,
): ViewerRights {
  const pending = proposal.status === 'pending_approval';
  const open = pending && proposal.expiresAt.getTime() > now.getTime();
  const mayDecide = roleAtLeast(viewer.role, proposal.routing.role);
  const hasDecided = decisions.some((d) => d.userId === viewer.userId);
  const initiator = initiators.has(viewer.userId);
  const canReject = open && mayDecide && !hasDecided;
  return {
    role: viewer.role,
    mayDecide,
    hasDecided,
    initiator,
    canReject,
    canApprove: canReject && !initiator,
    canExtend: open && mayDecide && proposal.extendedAt === null,
    extendByHours: Math.round(grantedDuration(proposal) / 3_600_000),
    canEdit: pending && mayDecide,
  };
}

/** A proposal with what goes with it: its decisions, execution state, words and, for an operator, their rights. */
export type ProposalView = {
  proposal: Proposal;
  decisions: DecisionRow[];
  state: ExecutionState;
  wording: ProposalWording;
  viewer: ViewerRights | null;
  /** An operator asked the agent to propose again (stale, or changed since proposed). */
  reproposal: Reproposal | null;
};

/** Loads the one view of a proposal the page and the API share; `viewer` is an operator of its tenant. */
export async function loadProposalView(db: Database, proposal: Proposal, viewer?: Viewer, now = new Date()): Promise<ProposalView> {
  const [decisions, state, initiators, reproposal] = await Promise.all([
    decisionsFor(db, proposal.tenantId, proposal.id),
    executionStateFor(db, proposal.tenantId, proposal.id),
    viewer ? initiatorsOf(db, proposal) : Promise.resolve(new Set<string>()),
    reproposalOf(db, proposal),
  ]);
  return {
    proposal,
    decisions,
    state,
    wording: wordingOf(proposal),
    viewer: viewer ? viewerRights(proposal, decisions, viewer, initiators, now) : null,
    reproposal,
  };
}

/**
 * The earlier proposals an aggregate bound counted, in the action's words, or null when there
 * were none ("With 2 earlier refunds on ord_1843 in the last 24 h: 300.00 EUR in all").
 */
export function routingContext(proposal: Proposal): string | null {
  const aggregate = proposal.routing.aggregate;
  if (!aggregate || aggregate.priorCount === 0) return null;
  const { args } = proposal.payload;
  const described = findAction(proposal.action)?.describeAggregate?.(args, aggregate);
  if (described) return described;
  const { priorCount, windowHours, field, total } = aggregate;
  return `With ${priorCount} earlier proposal${priorCount === 1 ? '' : 's'} of this action on ${proposal.resourceKey ?? 'this resource'} in the last ${windowHours} h: ${field} ${total} in all`;
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
    })),
    execution: state.execution,
  } satisfies AgentProposalDetail;
  if (audience === 'agent') return detail;
  // Flags stay with operators: the agent is the party whose text they read, and naming what tripped
  // them would teach it to write around them.
  return { ...detail, flags: proposal.flags, evidence: proposal.evidence, rawCandidate: proposal.rawCandidate, command: state.command } satisfies OperatorProposalDetail;
}

/** `GET /api/v1/proposals/:id`: the detail, and for an operator what they may do with it (`viewer`). */
export function proposalViewJson(view: ProposalView, origin: string, audience: 'agent' | 'operator') {
  const detail = { ...proposalDetail(view.proposal, view.decisions, origin, audience, view.state), reproposal: view.reproposal };
  if (audience === 'operator' && view.viewer && 'rawCandidate' in detail) return { ...detail, viewer: view.viewer } satisfies OperatorProposalView;
  return detail satisfies AgentProposalView;
}
