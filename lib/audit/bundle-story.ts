import type { ChainRow } from './verify';

/**
 * What a proposal's hashed events say happened to it (docs/design.md §8): who proposed and decided,
 * under which rule, the status it reached and how its execution ended. A bundle verifier reads
 * these from the events that re-hashed and sit on the signed chain, never from the bundle's own
 * summary fields, and holds those fields against them.
 */
export type Decided = {
  seq: number;
  decision: 'approve' | 'reject';
  userId: string;
  name: string | null;
  payloadHash: string | null;
  at: string;
  /**
   * Its `proposal.approval_withdrawn` event: the approval stopped counting (role: the approver's new role, null when
   * removed).
   */
  withdrawn?: { seq: number; at: string; role: string | null };
};

export type Story = {
  created: ChainRow | undefined;
  decisions: Decided[];
  /** The status the events lead to, and the event that set it. */
  status: { status: string; seq: number } | undefined;
  /** The last execution outcome event (`execution.succeeded`, `.failed`, `.outcome_unknown`). */
  execution: { status: string; seq: number; at: string } | undefined;
  /** The approvals the routing asked for, as the decision events record it. */
  required: number | undefined;
  /**
   * The first event that cannot happen in the status the events before it lead to (e.g. a command minted for a proposal
   * never approved).
   */
  outOfPlace: { seq: number; type: string; status: string | undefined } | undefined;
  /** The standing grant that approved it instead of a person (docs/grants.md), as its event records it. */
  grant: { seq: number; grantId: string; userId: string; name: string | null; at: string } | undefined;
};

export const DECISION_TYPES: ReadonlySet<string> = new Set([
  'proposal.approval_added',
  'proposal.approved',
  'proposal.rejected',
]);
const OUTCOMES = new Set(['execution.succeeded', 'execution.failed', 'execution.outcome_unknown']);

/**
 * An execution outcome moves only a proposal that is running (a refused command of a rejected one leaves it rejected).
 */
const outcome = (status: string) => (_row: ChainRow, current: string | undefined) =>
  current === 'executing' || current === 'outcome_unknown' ? status : current;

/** The status each event type moves a proposal to, from `current`; types not listed leave it as it was. */
const STATUS_AFTER: Record<string, (row: ChainRow, current: string | undefined) => string | undefined> = {
  'proposal.created': (row) => (row.reasonCode === 'auto_approve' ? 'approved' : 'pending_approval'),
  'proposal.approval_added': () => 'pending_approval',
  'proposal.approved': () => 'approved',
  'proposal.rejected': () => 'rejected',
  'proposal.expired': () => 'expired',
  'proposal.stale': () => 'stale',
  'proposal.revised': () => 'cancelled',
  'execution.started': () => 'executing',
  'execution.succeeded': outcome('succeeded'),
  'execution.failed': outcome('failed'),
  'execution.outcome_unknown': outcome('outcome_unknown'),
};

/** Events that happen only to an approved proposal: without its approval event before them, one was left out. */
const AFTER_APPROVAL = new Set(['command.minted', 'execution.started']);

/** The story of `events` (one proposal's, oldest first). */
export function storyOf(events: readonly ChainRow[]): Story {
  const story: Story = {
    created: undefined,
    decisions: [],
    status: undefined,
    execution: undefined,
    required: undefined,
    grant: undefined,
    outOfPlace: undefined,
  };
  for (const row of events) {
    if (AFTER_APPROVAL.has(row.type) && story.status?.status !== 'approved')
      story.outOfPlace ??= { seq: row.seq, type: row.type, status: story.status?.status };
    if (row.type === 'proposal.created') story.created ??= row;
    if (
      DECISION_TYPES.has(row.type) &&
      row.actorType === 'user' &&
      (row.reasonCode === 'approve' || row.reasonCode === 'reject')
    ) {
      story.decisions.push({
        seq: row.seq,
        decision: row.reasonCode,
        userId: row.actorId,
        name: row.actorName ?? null,
        payloadHash: row.payloadHash,
        at: new Date(row.occurredAt).toISOString(),
      });
      if (typeof row.data.required === 'number') story.required = row.data.required;
    }
    if (row.type === 'proposal.approval_withdrawn') {
      const approval = story.decisions.findLast(
        (decision) => decision.decision === 'approve' && decision.userId === row.data.user && !decision.withdrawn,
      );
      if (approval)
        approval.withdrawn = {
          seq: row.seq,
          at: new Date(row.occurredAt).toISOString(),
          role: typeof row.data.role === 'string' ? row.data.role : null,
        };
    }
    if (row.type === 'proposal.approved' && row.reasonCode === 'grant' && typeof row.data.grant === 'string') {
      story.grant = {
        seq: row.seq,
        grantId: row.data.grant,
        userId: row.actorId,
        name: row.actorName ?? null,
        at: new Date(row.occurredAt).toISOString(),
      };
    }
    const next = STATUS_AFTER[row.type]?.(row, story.status?.status);
    if (next && next !== story.status?.status) story.status = { status: next, seq: row.seq };
    if (OUTCOMES.has(row.type))
      story.execution = {
        status: row.type.slice('execution.'.length),
        seq: row.seq,
        at: new Date(row.occurredAt).toISOString(),
      };
  }
  return story;
}

/** The approvals that count: by distinct people, none withdrawn. */
export function countedApprovals(story: Story): number {
  return new Set(
    story.decisions
      .filter((decision) => decision.decision === 'approve' && !decision.withdrawn)
      .map((decision) => decision.userId),
  ).size;
}

/**
 * A decision's line in the verified story: "approved by Bob (usr_2) at … (event #5) — withdrawn: role changed to viewer
 * (event #7)".
 */
export function decisionWords(decision: Decided, label: string, passkey = ''): string {
  const withdrawn = decision.withdrawn
    ? ' — withdrawn: ' +
      (decision.withdrawn.role ? `role changed to ${decision.withdrawn.role}` : 'removed from the tenant') +
      ` at ${decision.withdrawn.at} (event #${decision.withdrawn.seq}), not counted`
    : '';
  return (
    `${decision.decision === 'approve' ? 'approved' : 'rejected'} by ${label}${passkey} ` +
    `at ${decision.at} (event #${decision.seq})${withdrawn}`
  );
}

/** "Alice Example (usr_1)", or the id with "(name unverified)" for events written before names were recorded. */
export function actorLabel(name: string | null | undefined, id: string): string {
  return name ? `${name} (${id})` : `${id} (name unverified)`;
}

/**
 * The bundle fields no hash or signature covers: the verifier shows them as the bundle states
 * them, never as verified. (Status, routing rule and outcome, risk, agent, decisions and the
 * execution status are held against the events or recomputed, so they are not listed.)
 */
export const UNVERIFIED_FIELDS = [
  'rawCandidate (the raw body the agent sent)',
  'gates (the checks as the server recorded them)',
  'proposal.facts',
  'proposal.statusReason',
  'proposal.requestId',
  'proposal.expiresAt',
  'proposal.decidedAt',
  'proposal.routing.role',
  'proposal.routing.aggregate',
  'decisions[].reason',
  'execution.errorCode',
  'generatedAt',
] as const;
