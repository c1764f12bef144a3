import type { ProposalFlag } from '@/db/proposal-flags';
import { type Severity, severityOf } from '@/lib/shared/severity';

/**
 * The queue's view (group, filters and sort) as the URL carries it, and the items it shows. Type
 * imports only: client components use it.
 */
export const QUEUE_SORTS = ['expiring', 'newest', 'oldest'] as const;
export type QueueSort = (typeof QUEUE_SORTS)[number];
export const QUEUE_RISKS = ['low', 'medium', 'high'] as const;
export type QueueRisk = (typeof QUEUE_RISKS)[number];

/**
 * Whose move it is. `needs-you`: pending, not past its expiry, the viewer's role may decide it, they
 * are not one of its initiators and have not decided it yet. `waiting`: every other pending one.
 * `all`: both.
 */
export const QUEUE_GROUPS = ['needs-you', 'waiting', 'all'] as const;
export type QueueGroup = (typeof QUEUE_GROUPS)[number];
export const DEFAULT_GROUP: QueueGroup = 'needs-you';
export const GROUP_LABELS: Record<QueueGroup, string> = {
  'needs-you': 'Needs you',
  waiting: 'Waiting on others',
  all: 'Everything',
};

export type QueueView = { group: QueueGroup; action?: string; agent?: string; risk?: QueueRisk; sort: QueueSort };

export const SORT_LABELS: Record<QueueSort, string> = {
  expiring: 'expiring first',
  newest: 'newest first',
  oldest: 'oldest first',
};

/** The URL search string of a view, defaults left out ('' for the default view). */
export function queueViewSearch(view: QueueView): string {
  const search = new URLSearchParams();
  if (view.group !== DEFAULT_GROUP) search.set('group', view.group);
  if (view.action) search.set('action', view.action);
  if (view.agent) search.set('agent', view.agent);
  if (view.risk) search.set('risk', view.risk);
  if (view.sort !== 'expiring') search.set('sort', view.sort);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * The viewer's part in a proposal. Only `decide` is theirs to act on now; the others say why it
 * waits on someone else. The server's decide() stays the authority: this only sorts the list.
 */
export type ViewerPart =
  | { kind: 'decide' }
  /** They approved it; `more` approvals are still needed from others. */
  | { kind: 'approved'; more: number }
  /** The agent acts for them, or they edited it (or a revision before it): someone else approves. */
  | { kind: 'initiator'; how: 'on_behalf' | 'edited' }
  /** Their role is below the routing rule's (viewers decide nothing). */
  | { kind: 'role'; needs: 'approver' | 'admin' }
  /** Past its expiry: the sweep closes it within a minute; nobody can approve it. */
  | { kind: 'expired' };

/** The part in words, for the row ("You approved · 1 more needed"). */
export function partWords(part: ViewerPart): string {
  switch (part.kind) {
    case 'decide':
      return 'Needs you';
    case 'approved':
      return `You approved · ${part.more} more needed`;
    case 'initiator':
      return part.how === 'edited'
        ? 'You edited it · someone else approves'
        : 'Proposed on your behalf · someone else approves';
    case 'role':
      return `Needs an ${part.needs}`;
    case 'expired':
      return 'Expired · closing';
  }
}

/** An argument as the preview shows it: the value as text, and words beside it ("4999" → "49.99 USD"). */
export type QueueArg = { name: string; value: string; hint: string | null };

/** The start of one cited evidence item (untrusted text, cut on the server). */
export type QueueEvidence = { id: string; kind: string; excerpt: string; truncated: boolean };

/** How many characters of each evidence item the queue carries. */
export const EVIDENCE_EXCERPT_CHARS = 280;

export type QueueItem = {
  id: string;
  summary: string;
  /** What approving does, in words ("Approve refund of 49.99 USD"). */
  approveLabel: string;
  action: string;
  agent: string;
  risk: string;
  rule: string;
  /** The role the routing rule asks for. */
  role: 'approver' | 'admin';
  approvals: { have: number; need: number };
  payloadHash: string;
  createdAt: string;
  expiresAt: string;
  /** What the gates noticed (suspicious evidence, hidden characters, near a bound, first use). */
  flags: ProposalFlag[];
  /** The resource moved since it was proposed but the proposal still holds: what moved, in words. */
  changedSinceProposed: string | null;
  /** The viewer's part in it: theirs to decide, or why it waits on someone else. */
  mine: ViewerPart;
  /** The arguments in the payload's order. */
  args: QueueArg[];
  /** The agent's `reason` argument, when the action has one (untrusted text). */
  reason: string | null;
  /** The cited evidence, each cut to EVIDENCE_EXCERPT_CHARS. */
  evidence: QueueEvidence[];
};

/** The item's one severity (./severity.ts): its risk raised by its flags and quorum. */
export const itemSeverity = (item: Pick<QueueItem, 'flags' | 'risk' | 'approvals'>): Severity =>
  severityOf({ risk: item.risk, flags: item.flags, approvalsNeeded: item.approvals.need });

/**
 * Whether approving should stop for a look first: its severity is not low (risk, flags, quorum) or
 * its resource changed since it was proposed. Anything else approves with one key once its facts
 * were checked fresh (./fresh-facts.ts).
 */
export function needsLook(item: Pick<QueueItem, 'flags' | 'risk' | 'approvals' | 'changedSinceProposed'>): boolean {
  return item.flags.length > 0 || itemSeverity(item).level !== 'low' || item.changedSinceProposed !== null;
}

/** Whether the viewer may act on the item now (select, approve, reject). */
export const isMine = (item: Pick<QueueItem, 'mine'>): boolean => item.mine.kind === 'decide';

/**
 * A page of a group or a filter looks at no more than this many pending proposals past its cursor:
 * a group that is rare among them (nothing waits on others for an admin) answers a short page, even
 * an empty one, with a cursor to look further, instead of reading every pending proposal.
 */
export const QUEUE_SCAN_LIMIT = 2_000;
/** The groups' counts read the first this many pending proposals: exact up to it, "at least" past it. */
export const QUEUE_COUNT_LIMIT = 1_000;

export type QueueCounts = Record<QueueGroup, number>;

/** A count as people read it: "1000+" when it is a lower bound. */
export const countText = (count: number, exact: boolean): string => (exact ? String(count) : `${count}+`);

export type QueuePage = {
  /**
   * Fewer than a page, even none, when the page looked at as many pending proposals as one request may: `nextCursor`
   * looks further.
   */
  items: QueueItem[];
  nextCursor: string | null;
  /** How many pending proposals in this group match the filters (all pages). */
  total: number;
  /** Each group's size under the same filters (the tabs). */
  counts: QueueCounts;
  /** False when the queue is longer than what is counted: `total` and `counts` are then lower bounds. */
  countsExact: boolean;
  /** The server's time when the page was read: proposals created after it are "new" to the reader. */
  asOf: string;
};
