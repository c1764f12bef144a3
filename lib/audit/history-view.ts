/**
 * The history page's view (tab and filters) as the URL carries it, and the rows it shows. No
 * imports of server code: client components use it. Validation lives in history-filters.ts.
 */
import { AUDIT_EVENTS, type AuditEventType } from '@/lib/events/registry';

export const HISTORY_TABS = ['decisions', 'events'] as const;
export type HistoryTab = (typeof HISTORY_TABS)[number];

/**
 * How a proposal reached its decision or end, as the outcome filter names it. `approved` covers
 * everything past approval (executing and each execution result); the others are one status each.
 */
export const HISTORY_OUTCOMES = [
  'approved',
  'rejected',
  'expired',
  'stale',
  'cancelled',
  'executing',
  'succeeded',
  'failed',
  'outcome_unknown',
] as const;
export type HistoryOutcome = (typeof HISTORY_OUTCOMES)[number];

export const OUTCOME_STATUSES: Record<HistoryOutcome, readonly string[]> = {
  approved: ['approved', 'executing', 'succeeded', 'failed', 'outcome_unknown'],
  rejected: ['rejected'],
  expired: ['expired'],
  stale: ['stale'],
  cancelled: ['cancelled'],
  executing: ['executing'],
  succeeded: ['succeeded'],
  failed: ['failed'],
  outcome_unknown: ['outcome_unknown'],
};

/** Every status a proposal ends (or leaves the decision) in: the Decisions view's rows. */
export const DECIDED_STATUSES = OUTCOME_STATUSES.approved.concat(['rejected', 'expired', 'stale', 'cancelled']);

export const EVENT_TYPES = Object.keys(AUDIT_EVENTS) as AuditEventType[];

/**
 * A withdrawn approval in words, from its `proposal.approval_withdrawn` event's data or its
 * decision row (`role` null: removed): "Bob's approval was withdrawn: their role changed to viewer".
 */
export function withdrawalWords(name: string, role: string | null): string {
  return (
    `${name}'s approval was ` +
    `withdrawn: ${role ? `their role changed to ${role}` : 'they were removed from the tenant'}`
  );
}

/** The words of a `proposal.approval_withdrawn` event (its data names the person and their new role). */
export function withdrawalEventWords(data: Record<string, string | number | boolean | null>): string {
  return withdrawalWords(
    typeof data.name === 'string' ? data.name : String(data.user),
    typeof data.role === 'string' ? data.role : null,
  );
}

/** What the URL may say; every field is optional but the tab. Dates are `YYYY-MM-DD` in `tz`. */
export type HistoryView = {
  tab: HistoryTab;
  person?: string;
  agent?: string;
  action?: string;
  outcome?: HistoryOutcome;
  type?: AuditEventType;
  from?: string;
  to?: string;
  tz?: string;
  q?: string;
};

/** The filter keys, in the order the URL writes them. */
export const FILTER_KEYS = ['person', 'agent', 'action', 'outcome', 'type', 'from', 'to', 'tz', 'q'] as const;

/** The URL search of a view (the tab left out when it is the default), without paging. */
export function historySearch(view: HistoryView, extra: Record<string, string> = {}): string {
  const search = new URLSearchParams();
  if (view.tab !== 'decisions') search.set('tab', view.tab);
  for (const key of FILTER_KEYS) {
    const value = view[key];
    if (value) search.set(key, value);
  }
  for (const [key, value] of Object.entries(extra)) search.set(key, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * The export of the rows a view shows: the Events view's events, or every event of the proposals
 * the Decisions view shows (its filters and text apply to proposals there, not to events).
 */
export function exportHref(view: HistoryView, format: 'csv' | 'jsonl'): string {
  return `/api/v1/audit/events${historySearch({ ...view, tab: 'events' }, { tab: view.tab, format })}`;
}

export type DecisionRowView = {
  id: string;
  /** When it was decided or ended (ISO). */
  at: string;
  createdAt: string;
  summary: string;
  action: string;
  agent: string;
  /** The agent in words, as everywhere else: "agent acme-support-bot" (lib/events/actor-label.ts). */
  agentLabel: string;
  /** The id of the agent key that proposed it (null when none is stored): the hover title. */
  agentKeyId: string | null;
  status: string;
  /**
   * Who decided, in order ("alice approved", "bob rejected"); `withdrawn`: an approval that stopped counting (never
   * among those who approved).
   */
  deciders: { name: string; decision: 'approve' | 'reject'; withdrawn: boolean }[];
  /** The standing grant that approved it instead of a person, and whose it is (docs/grants.md). */
  grant: { id: string; from: string } | null;
  /** The reason in words for rejected, stale, expired and cancelled proposals. */
  reason: string | null;
  /** Why the editor made this revision (their own text); null for an agent's proposal. */
  revisionReason: string | null;
  execution: { status: string; receiptId: string | null; errorCode: string | null } | null;
  payloadHash: string;
  /** Milliseconds from proposal to decision. */
  timeToDecisionMs: number;
};

export type EventRowView = {
  tenantId: string;
  seq: number;
  type: string;
  /** The event in words: the registry's description plus what its data says. */
  text: string;
  /** The event's name in words ("Approval added"). */
  title: string;
  actorType: string;
  actorId: string;
  /** users.name, the agent's name, or "system". */
  actorName: string;
  /** The actor in words: "Alice", "agent acme-support-bot", "Countersign" (lib/events/actor-label.ts). */
  actorLabel: string;
  proposalId: string | null;
  payloadHash: string | null;
  reasonCode: string | null;
  contractVersion: number | null;
  data: Record<string, string | number | boolean | null>;
  occurredAt: string;
  prevHash: string;
  hash: string;
};

export type HistoryPage<Row> = { items: Row[]; nextCursor: string | null };
