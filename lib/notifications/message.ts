import type { Proposal } from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import { agentLabel } from '@/lib/events/actor-label';
import type { NotificationEvent, OutboxTopic } from '@/lib/events/registry';
import { VIA_NOTIFICATION } from '@/lib/oversight/views';
import { type FactsContext, proposalFacts } from './facts';

/** What every message is built from: flat facts, stored with the delivery, rendered per channel. */
export type MessageData = Record<string, string | number | boolean | null>;

type OutboxRow = { topic: string; body: unknown };

/**
 * The notification an outbox row stands for, if any: `proposal.created` waits for a decision (or
 * was decided at once by policy), executions become `proposal.executed`, a withdrawn approval waits
 * again; a partial approval and a revised parent (its revision brings its own `proposal.created`)
 * notify nobody.
 */
export function notificationOf(row: OutboxRow): NotificationEvent | undefined {
  const body = (row.body ?? {}) as { status?: unknown };
  const topic = row.topic as OutboxTopic;
  switch (topic) {
    case 'proposal.created':
      return body.status === 'pending_approval' ? 'proposal.waiting' : 'proposal.decided';
    case 'proposal.decided':
      // A withdrawn approval (its approver's role changed): the proposal waits for another approver again.
      if (body.status === 'pending_approval')
        return (row.body as { decision?: unknown }).decision === 'withdrawn' ? 'proposal.waiting' : undefined;
      return 'proposal.decided';
    case 'execution.succeeded':
    case 'execution.failed':
      return 'proposal.executed';
    case 'proposal.expired':
    case 'proposal.stale':
    case 'proposal.repropose_requested':
    case 'proposal.reminder':
    case 'proposal.escalated':
    case 'execution.outcome_unknown':
    case 'intake.repair_exhausted':
    case 'audit.chain_broken':
    case 'oversight.rubber_stamp':
      return topic;
    default:
      return undefined;
  }
}

const HEADLINES: Record<NotificationEvent, (status: string) => string> = {
  'proposal.waiting': () => 'Waiting for a decision',
  'proposal.reminder': () => 'Expires soon, still undecided',
  'proposal.escalated': () => 'Nobody has decided this yet',
  'proposal.decided': (status) => (status === 'rejected' ? 'Rejected' : 'Approved'),
  'proposal.expired': () => 'Expired undecided',
  'proposal.stale': () => 'Stale: live state changed before a decision',
  'proposal.repropose_requested': () => 'The agent is asked to propose this again',
  'proposal.executed': (status) => (status === 'failed' ? 'Execution failed: nothing was written' : 'Executed'),
  'execution.outcome_unknown': () => 'Outcome unknown: the write may or may not have happened',
  'intake.repair_exhausted': () => "An agent's repair chain ran out",
  'audit.chain_broken': () => 'The audit chain failed verification',
  'oversight.rubber_stamp': () => 'Decisions that look like rubber-stamping',
};

export function headline(event: string, status: string): string {
  return HEADLINES[event as NotificationEvent]?.(status) ?? 'Test notification';
}

/**
 * The facts of a message about a proposal. By default no argument value leaves: the summary is the
 * action's title and who proposed it, then the value-free facts of ./facts.ts (resource id, flags,
 * severity, quorum, "needs you", revision and editor); `withValues` (the tenant's opt-in) adds the
 * action's own one-line summary, which names amounts and resources.
 */
export function proposalMessage(
  event: NotificationEvent,
  proposal: Pick<
    Proposal,
    | 'id'
    | 'tenantId'
    | 'action'
    | 'agentName'
    | 'risk'
    | 'status'
    | 'expiresAt'
    | 'payload'
    | 'facts'
    | 'revisionReason'
    | 'flags'
    | 'routing'
    | 'resourceKey'
    | 'parentId'
  >,
  options: { baseUrl: string; withValues: boolean; status?: string } & FactsContext,
): MessageData {
  const action = findAction(proposal.action);
  const title = action?.title ?? proposal.action;
  const status = options.status ?? proposal.status;
  const data: MessageData = {
    event,
    headline: headline(event, status),
    tenant: proposal.tenantId,
    proposalId: proposal.id,
    action: proposal.action,
    title,
    agent: proposal.agentName,
    risk: proposal.risk,
    status,
    expiresAt: proposal.expiresAt.toISOString(),
    summary: `${title} proposed by ${agentLabel(proposal.agentName)}`,
    url: new URL(`/proposals/${encodeURIComponent(proposal.id)}?via=${VIA_NOTIFICATION}`, options.baseUrl).toString(),
    ...proposalFacts(event, proposal, status, options),
  };
  // The editor's own words, not the agent's arguments: a revision says why it was made even without values.
  if (proposal.revisionReason) data.revisionReason = proposal.revisionReason;
  if (options.withValues && action) data.details = action.summarize(proposal.payload.args, proposal.facts);
  return data;
}

/** A message that is about the tenant, not one proposal (an exhausted repair chain, a broken audit chain). */
export function tenantMessage(
  event: NotificationEvent,
  tenantId: string,
  body: Record<string, unknown>,
  baseUrl: string,
): MessageData {
  const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  const base = { event, headline: headline(event, ''), tenant: tenantId };
  if (event === 'audit.chain_broken') {
    return {
      ...base,
      seq: Number(body.seq ?? 0),
      summary: `Event #${text(body.seq)} of the audit chain does not match its hash or its predecessor`,
      url: new URL('/history', baseUrl).toString(),
    };
  }
  if (event === 'oversight.rubber_stamp') {
    const dwell = (Number(body.medianDwellMs ?? 0) / 1000).toFixed(1);
    return {
      ...base,
      approver: text(body.approver),
      summary:
        `${text(body.approver)} approved ${text(body.approvalPercent)}% of ${text(body.decisions)} decisions ` +
        `in the last ${text(body.days)} days, a median of ${dwell} s after first opening each`,
      url: new URL('/history/oversight', baseUrl).toString(),
    };
  }
  return {
    ...base,
    agent: text(body.agent),
    requestId: text(body.rootRequestId),
    summary: `${text(body.agent)} may not repair request ${text(body.rootRequestId)} again: its repair chain ran out`,
    url: new URL('/contracts/attempts?exhausted=1', baseUrl).toString(),
  };
}

/** The time left before `expiresAt`, in words ("1 h 5 min", "expired"). */
export function timeLeft(expiresAt: string, now: Date): string {
  const ms = new Date(expiresAt).getTime() - now.getTime();
  if (!(ms > 0)) return 'expired';
  const minutes = Math.ceil(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
