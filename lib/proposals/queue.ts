import { and, count, eq, inArray } from 'drizzle-orm';
import type { Database } from '@/db';
import { decisions } from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import { decodeCursor, listProposals } from './queries';

export type QueueItem = {
  id: string;
  summary: string;
  action: string;
  agent: string;
  risk: string;
  rule: string;
  approvals: { have: number; need: number };
  payloadHash: string;
  createdAt: string;
  expiresAt: string;
};

export type QueuePage = { items: QueueItem[]; nextCursor: string | null };

export const QUEUE_PAGE_SIZE = 50;

/** One keyset page of what waits for a decision, with each proposal's approval progress. */
export async function pendingQueue(db: Database, tenantId: string, cursor?: string | null): Promise<QueuePage> {
  const page = await listProposals(db, tenantId, { status: 'pending_approval', cursor: decodeCursor(cursor), limit: QUEUE_PAGE_SIZE });
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
    items: page.items.map((p) => {
      const args = (p.payload as { args: Record<string, unknown> }).args;
      return {
        id: p.id,
        summary: findAction(p.action)?.summarize(args, p.facts) ?? p.action,
        action: p.action,
        agent: p.agentName,
        risk: p.risk,
        rule: `${p.routing.rule} v${p.routing.policyVersion}`,
        approvals: { have: have.get(p.id) ?? 0, need: p.routing.approvals },
        payloadHash: p.payloadHash,
        createdAt: p.createdAt.toISOString(),
        expiresAt: p.expiresAt.toISOString(),
      };
    }),
  };
}
