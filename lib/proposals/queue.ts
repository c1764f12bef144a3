import 'server-only';
import { and, count, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '@/db';
import { decisions } from '@/db/schema';
import { allActions, findAction } from '@/lib/actions/registry';
import { parseSearch } from '@/lib/api/search';
import { AGENT_NAME } from '@/lib/agents/name';
import { agentsWithProposals, countProposals, decodeCursor, listProposals, PROPOSAL_SORTS, type ListCursor } from './queries';
import { QUEUE_RISKS, type QueuePage, type QueueView } from './queue-view';

export { queueViewSearch, type QueueItem, type QueuePage, type QueueView } from './queue-view';

export const QUEUE_PAGE_SIZE = 50;

const actionNames = () => allActions().map((action) => action.name);

const queueParamsSchema = z.strictObject({
  tenant: z.string().min(1).max(100).optional(),
  action: z
    .string()
    .refine((value) => actionNames().includes(value), { error: (issue) => `action must be one of ${actionNames().join(', ')}; got ${describe(issue.input)}.` })
    .optional(),
  agent: z
    .string()
    .min(1, 'agent must not be empty.')
    .max(64, 'agent must be at most 64 characters.')
    .regex(AGENT_NAME, 'agent must be an agent name: letters, digits, ".", "_" and "-".')
    .optional(),
  risk: z.enum(QUEUE_RISKS, { error: (issue) => `risk must be one of ${QUEUE_RISKS.join(', ')}; got ${describe(issue.input)}.` }).optional(),
  sort: z.enum(PROPOSAL_SORTS, { error: (issue) => `sort must be one of ${PROPOSAL_SORTS.join(', ')}; got ${describe(issue.input)}.` }).default('expiring'),
  cursor: z.string().max(500).optional(),
});

function describe(input: unknown): string {
  return typeof input === 'string' ? `"${input.slice(0, 40)}"` : 'nothing';
}

export type QueueParams = QueueView & { tenant?: string; cursor?: ListCursor };

export type ParsedQueueParams = { ok: true; params: QueueParams } | { ok: false; messages: string[] };

/** Validates `?tenant=&action=&agent=&risk=&sort=&cursor=`: unknown parameters or values are refused, with words. */
export function parseQueueParams(search: URLSearchParams): ParsedQueueParams {
  const parsed = parseSearch(queueParamsSchema, search);
  if (!parsed.ok) return parsed;
  const { cursor: rawCursor, ...view } = parsed.data;
  let cursor: ListCursor | undefined;
  if (rawCursor !== undefined) {
    cursor = decodeCursor(rawCursor);
    if (!cursor) return { ok: false, messages: ['cursor is not one this queue returned; start again without it.'] };
    if (cursor.sort !== view.sort) return { ok: false, messages: [`cursor belongs to sort "${cursor.sort}", not "${view.sort}"; start again without it.`] };
  }
  return { ok: true, params: { ...view, ...(cursor ? { cursor } : {}) } };
}

/** For pages: what is valid in the URL is kept, anything else falls back to its default. */
export function queueViewFromSearch(search: Record<string, string | string[] | undefined>): QueueView {
  const view: QueueView = { sort: 'expiring' };
  const one = (key: string) => {
    const value = search[key];
    return typeof value === 'string' ? value : undefined;
  };
  for (const key of ['action', 'agent', 'risk', 'sort'] as const) {
    const value = one(key);
    if (value === undefined) continue;
    const parsed = parseQueueParams(new URLSearchParams({ [key]: value }));
    if (parsed.ok) Object.assign(view, { [key]: parsed.params[key] });
  }
  return view;
}

/** One keyset page of what waits for a decision, with each proposal's approval progress. */
export async function pendingQueue(db: Database, tenantId: string, view: QueueView = { sort: 'expiring' }, cursor?: ListCursor): Promise<QueuePage> {
  const asOf = new Date();
  const filters = { action: view.action, agent: view.agent, risk: view.risk };
  const page = await listProposals(db, tenantId, { status: 'pending_approval', filters, sort: view.sort, cursor, limit: QUEUE_PAGE_SIZE });
  const total = await countProposals(db, tenantId, 'pending_approval', filters);
  const ids = page.items.map((p) => p.id);
  const counts = ids.length
    ? await db
        .select({ proposalId: decisions.proposalId, n: count() })
        .from(decisions)
        .where(and(eq(decisions.tenantId, tenantId), eq(decisions.decision, 'approve'), inArray(decisions.proposalId, ids)))
        .groupBy(decisions.proposalId)
    : [];
  const have = new Map(counts.map((c) => [c.proposalId, Number(c.n)]));
  return {
    nextCursor: page.nextCursor,
    total,
    asOf: asOf.toISOString(),
    items: page.items.map((p) => {
      const { args } = p.payload;
      const actionModule = findAction(p.action);
      return {
        id: p.id,
        summary: actionModule?.summarize(args, p.facts) ?? p.action,
        approveLabel: actionModule?.approveLabel(args) ?? `Approve ${p.action}`,
        action: p.action,
        agent: p.agentName,
        risk: p.risk,
        rule: `${p.routing.rule} v${p.routing.policyVersion}`,
        approvals: { have: have.get(p.id) ?? 0, need: p.routing.approvals },
        payloadHash: p.payloadHash,
        createdAt: p.createdAt.toISOString(),
        expiresAt: p.expiresAt.toISOString(),
        flags: p.flags,
        changedSinceProposed: p.drift?.description ?? null,
      };
    }),
  };
}

/** The choices of the queue's filters: every action, and the agents with something pending. */
export async function queueFilterChoices(db: Database, tenantId: string): Promise<{ actions: string[]; agents: string[] }> {
  return { actions: actionNames(), agents: await agentsWithProposals(db, tenantId, 'pending_approval') };
}
