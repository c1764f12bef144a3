import { and, asc, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import type { Database } from '@/db';
import { auditEvents, commands, executions, type Proposal } from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import { EXECUTION_CHECKED } from '@/lib/jobs/reconcile-executions';
import type { DecisionRow } from './queries';

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
  const action = findAction(proposal.action);
  const { args } = proposal.payload;
  return action ? action.summarize(args, proposal.facts) : proposal.action;
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
  };
  if (audience === 'agent') return detail;
  return { ...detail, evidence: proposal.evidence, rawCandidate: proposal.rawCandidate, command: state.command };
}
