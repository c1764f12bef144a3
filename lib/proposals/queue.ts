import 'server-only';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '@/db';
import type { EvidenceSnapshot, Proposal } from '@/db/schema';
import { allActions, findAction } from '@/lib/actions/registry';
import { AGENT_NAME } from '@/lib/agents/name';
import { roleAtLeast } from '@/lib/auth/roles';
import { type ActionFinder, actionFinder, tenantActions } from '@/lib/definitions/catalog';
import { SNAKE_CASE } from '@/lib/definitions/document';
import { parseSearch } from '@/lib/input/search';
import {
  DEFAULT_GROUP,
  EVIDENCE_EXCERPT_CHARS,
  QUEUE_COUNT_LIMIT,
  QUEUE_GROUPS,
  QUEUE_RISKS,
  QUEUE_SCAN_LIMIT,
  type QueueArg,
  type QueueEvidence,
  type QueueItem,
  type QueuePage,
  type QueueView,
  type ViewerPart,
} from '@/lib/shared/queue-view';
import { decodeCursor, type ListCursor, PROPOSAL_SORTS } from './list-cursor';
import { agentsWithPending, countProposalsSplit, listProposals } from './status-page';
import { type QueueViewer, type ViewerFacts, viewerFactsFor, viewerRelation } from './viewer-relation';

export {
  QUEUE_COUNT_LIMIT,
  QUEUE_SCAN_LIMIT,
  type QueueItem,
  type QueuePage,
  type QueueView,
  queueViewSearch,
} from '@/lib/shared/queue-view';
export type { QueueViewer } from './viewer-relation';

export const QUEUE_PAGE_SIZE = 50;

const shippedNames = () =>
  allActions()
    .map((action) => action.name)
    .join(' or ');

const queueParamsSchema = z.strictObject({
  tenant: z.string().min(1).max(100).optional(),
  group: z
    .enum(QUEUE_GROUPS, {
      error: (issue) => `group must be one of ${QUEUE_GROUPS.join(', ')}; got ${describe(issue.input)}.`,
    })
    .default(DEFAULT_GROUP),
  action: z
    .string()
    // A shipped action or one of the tenant's own: a name no action has filters to nothing.
    .regex(SNAKE_CASE, {
      error: (issue) =>
        `action must be an action's name, lower snake case like ${shippedNames()}; got ${describe(issue.input)}.`,
    })
    .optional(),
  agent: z
    .string()
    .min(1, 'agent must not be empty.')
    .max(64, 'agent must be at most 64 characters.')
    .regex(AGENT_NAME, 'agent must be an agent name: letters, digits, ".", "_" and "-".')
    .optional(),
  risk: z
    .enum(QUEUE_RISKS, {
      error: (issue) => `risk must be one of ${QUEUE_RISKS.join(', ')}; got ${describe(issue.input)}.`,
    })
    .optional(),
  sort: z
    .enum(PROPOSAL_SORTS, {
      error: (issue) => `sort must be one of ${PROPOSAL_SORTS.join(', ')}; got ${describe(issue.input)}.`,
    })
    .default('expiring'),
  cursor: z.string().max(500).optional(),
});

function describe(input: unknown): string {
  return typeof input === 'string' ? `"${input.slice(0, 40)}"` : 'nothing';
}

export type QueueParams = QueueView & { tenant?: string; cursor?: ListCursor };

export type ParsedQueueParams = { ok: true; params: QueueParams } | { ok: false; messages: string[] };

/**
 * Validates `?tenant=&group=&action=&agent=&risk=&sort=&cursor=`: unknown parameters or values are refused, with words.
 */
export function parseQueueParams(search: URLSearchParams): ParsedQueueParams {
  const parsed = parseSearch(queueParamsSchema, search);
  if (!parsed.ok) return parsed;
  const { cursor: rawCursor, ...view } = parsed.data;
  let cursor: ListCursor | undefined;
  if (rawCursor !== undefined) {
    cursor = decodeCursor(rawCursor);
    if (!cursor) return { ok: false, messages: ['cursor is not one this queue returned; start again without it.'] };
    if (cursor.sort !== view.sort)
      return {
        ok: false,
        messages: [`cursor belongs to sort "${cursor.sort}", not "${view.sort}"; start again without it.`],
      };
  }
  return { ok: true, params: { ...view, ...(cursor ? { cursor } : {}) } };
}

/** For pages: what is valid in the URL is kept, anything else falls back to its default. */
export function queueViewFromSearch(search: Record<string, string | string[] | undefined>): QueueView {
  const view: QueueView = { group: DEFAULT_GROUP, sort: 'expiring' };
  const one = (key: string) => {
    const value = search[key];
    return typeof value === 'string' ? value : undefined;
  };
  for (const key of ['group', 'action', 'agent', 'risk', 'sort'] as const) {
    const value = one(key);
    if (value === undefined) continue;
    const parsed = parseQueueParams(new URLSearchParams({ [key]: value }));
    if (parsed.ok) Object.assign(view, { [key]: parsed.params[key] });
  }
  return view;
}

/** The viewer's part in one proposal, from the facts the list read in SQL (the same rules as the group filter). */
export function viewerPart(
  proposal: Pick<Proposal, 'expiresAt' | 'routing'>,
  facts: ViewerFacts,
  viewer: QueueViewer,
  asOf: Date,
): ViewerPart {
  if (facts.decided) return { kind: 'approved', more: Math.max(proposal.routing.approvals - facts.approvals, 0) };
  if (!roleAtLeast(viewer.role, proposal.routing.role) || viewer.role === 'viewer')
    return { kind: 'role', needs: proposal.routing.role };
  if (facts.edited) return { kind: 'initiator', how: 'edited' };
  if (facts.onBehalf) return { kind: 'initiator', how: 'on_behalf' };
  if (proposal.expiresAt.getTime() <= asOf.getTime()) return { kind: 'expired' };
  return { kind: 'decide' };
}

/** Untrusted evidence cut to its first EVIDENCE_EXCERPT_CHARS characters (whole code points). */
export function evidenceExcerpt(item: EvidenceSnapshot): QueueEvidence {
  const chars = Array.from(item.text);
  const truncated = chars.length > EVIDENCE_EXCERPT_CHARS;
  return {
    id: item.id,
    kind: item.kind,
    excerpt: truncated ? chars.slice(0, EVIDENCE_EXCERPT_CHARS).join('') : item.text,
    truncated,
  };
}

function argText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/** One proposal as a queue row and its preview. */
export function queueItem(
  p: Proposal,
  facts: ViewerFacts,
  viewer: QueueViewer,
  asOf: Date,
  actionOf: ActionFinder = findAction,
): QueueItem {
  const { args } = p.payload;
  const actionModule = actionOf(p.action);
  const hints = actionModule?.argHints?.(args) ?? {};
  const queueArgs: QueueArg[] = Object.entries(args).map(([name, value]) => ({
    name,
    value: argText(value),
    hint: hints[name] ?? null,
  }));
  return {
    id: p.id,
    summary: actionModule?.summarize(args, p.facts) ?? p.action,
    approveLabel: actionModule?.approveLabel(args) ?? `Approve ${p.action}`,
    action: p.action,
    agent: p.agentName,
    risk: p.risk,
    rule: `${p.routing.rule} v${p.routing.policyVersion}`,
    role: p.routing.role,
    approvals: { have: facts.approvals, need: p.routing.approvals },
    payloadHash: p.payloadHash,
    createdAt: p.createdAt.toISOString(),
    expiresAt: p.expiresAt.toISOString(),
    flags: p.flags,
    changedSinceProposed: p.drift?.description ?? null,
    mine: viewerPart(p, facts, viewer, asOf),
    args: queueArgs,
    reason: typeof args.reason === 'string' ? args.reason : null,
    evidence: p.evidence.map(evidenceExcerpt),
  };
}

const NO_FACTS: ViewerFacts = { approvals: 0, decided: false, onBehalf: false, edited: false };

/**
 * One keyset page of a group of what waits for a decision, as `viewer` sees it: each item with its
 * approval progress and the viewer's part, and every group's size for the tabs. The group is a
 * condition on the same index-backed keyset query, so paging works the same in every group. What a
 * request reads is bounded whatever the queue's size: a page looks at QUEUE_SCAN_LIMIT pending
 * proposals at most, the counts at QUEUE_COUNT_LIMIT (lower bounds past it, `countsExact: false`).
 */
export async function pendingQueue(
  db: Database,
  tenantId: string,
  viewer: QueueViewer,
  view: QueueView = { group: DEFAULT_GROUP, sort: 'expiring' },
  cursor?: ListCursor,
): Promise<QueuePage> {
  const asOf = new Date();
  const filters = { action: view.action, agent: view.agent, risk: view.risk };
  const { needsYou } = viewerRelation(viewer, asOf);
  const where = view.group === 'needs-you' ? needsYou : view.group === 'waiting' ? sql`not ${needsYou}` : undefined;
  const [page, counted] = await Promise.all([
    listProposals(db, tenantId, {
      status: 'pending_approval',
      filters,
      sort: view.sort,
      cursor,
      limit: QUEUE_PAGE_SIZE,
      where,
      scanLimit: QUEUE_SCAN_LIMIT,
    }),
    countProposalsSplit(db, tenantId, 'pending_approval', filters, needsYou, QUEUE_COUNT_LIMIT),
  ]);
  const facts = await viewerFactsFor(
    db,
    tenantId,
    page.items.map((p) => p.id),
    viewer,
    asOf,
  );
  const counts = { 'needs-you': counted.matching, waiting: counted.rest, all: counted.all };
  const actionOf = await actionFinder(
    db,
    tenantId,
    page.items.map((p) => p.action),
  );
  return {
    nextCursor: page.nextCursor,
    total: counts[view.group],
    counts,
    countsExact: counted.exact,
    asOf: asOf.toISOString(),
    items: page.items.map((p) => queueItem(p, facts.get(p.id) ?? NO_FACTS, viewer, asOf, actionOf)),
  };
}

/** The choices of the queue's filters: every action the tenant has, and the agents with something pending. */
export async function queueFilterChoices(
  db: Database,
  tenantId: string,
): Promise<{ actions: string[]; agents: string[] }> {
  const [actions, agents] = await Promise.all([tenantActions(db, tenantId), agentsWithPending(db, tenantId)]);
  return { actions: actions.map((action) => action.name), agents };
}
