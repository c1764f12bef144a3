import type { ProposalFlag } from './flag-types';

/**
 * The queue's view (filters and sort) as the URL carries it. Type imports only: client components use it.
 */
export const QUEUE_SORTS = ['expiring', 'newest', 'oldest'] as const;
export type QueueSort = (typeof QUEUE_SORTS)[number];
export const QUEUE_RISKS = ['low', 'medium', 'high'] as const;
export type QueueRisk = (typeof QUEUE_RISKS)[number];

export type QueueView = { action?: string; agent?: string; risk?: QueueRisk; sort: QueueSort };

export const SORT_LABELS: Record<QueueSort, string> = { expiring: 'expiring first', newest: 'newest first', oldest: 'oldest first' };

/** The URL search string of a view, defaults left out ('' for the default view). */
export function queueViewSearch(view: QueueView): string {
  const search = new URLSearchParams();
  if (view.action) search.set('action', view.action);
  if (view.agent) search.set('agent', view.agent);
  if (view.risk) search.set('risk', view.risk);
  if (view.sort !== 'expiring') search.set('sort', view.sort);
  const text = search.toString();
  return text ? `?${text}` : '';
}

export type QueueItem = {
  id: string;
  summary: string;
  /** What approving does, in words ("Approve refund of 49.99 USD"). */
  approveLabel: string;
  action: string;
  agent: string;
  risk: string;
  rule: string;
  approvals: { have: number; need: number };
  payloadHash: string;
  createdAt: string;
  expiresAt: string;
  /** What the gates noticed (suspicious evidence, hidden characters, near a bound, first use). */
  flags: ProposalFlag[];
  /** The resource moved since it was proposed but the proposal still holds: what moved, in words. */
  changedSinceProposed: string | null;
};

export type QueuePage = {
  items: QueueItem[];
  nextCursor: string | null;
  /** How many pending proposals match the filters (all pages). */
  total: number;
  /** The server's time when the page was read: proposals created after it are "new" to the reader. */
  asOf: string;
};
