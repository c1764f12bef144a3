import { and, asc, eq, gt, or } from 'drizzle-orm';
import type { Database } from '@/db';
import { decisions, proposals, users, type Proposal, type ProposalStatus } from '@/db/schema';

export async function getProposal(db: Database, tenantId: string, id: string): Promise<Proposal | undefined> {
  const [row] = await db
    .select()
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.id, id)))
    .limit(1);
  return row;
}

/** Only for finding which tenant to check membership in; never return it without that check. */
export async function tenantOfProposal(db: Database, id: string): Promise<string | undefined> {
  const [row] = await db.select({ tenantId: proposals.tenantId }).from(proposals).where(eq(proposals.id, id)).limit(1);
  return row?.tenantId;
}

export type DecisionRow = { decision: 'approve' | 'reject'; userId: string; userName: string; reason: string | null; createdAt: Date };

export async function decisionsFor(db: Database, tenantId: string, proposalId: string): Promise<DecisionRow[]> {
  return db
    .select({
      decision: decisions.decision,
      userId: decisions.userId,
      userName: users.name,
      reason: decisions.reason,
      createdAt: decisions.createdAt,
    })
    .from(decisions)
    .innerJoin(users, eq(users.id, decisions.userId))
    .where(and(eq(decisions.tenantId, tenantId), eq(decisions.proposalId, proposalId)))
    .orderBy(asc(decisions.createdAt));
}

export type QueueCursor = { expiresAt: string; id: string };

export function encodeCursor(cursor: QueueCursor): string {
  return Buffer.from(JSON.stringify([cursor.expiresAt, cursor.id])).toString('base64url');
}

export function decodeCursor(raw: string | null | undefined): QueueCursor | undefined {
  if (!raw) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [expiresAt, id] = value as unknown[];
    if (typeof expiresAt !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(expiresAt))) return undefined;
    return { expiresAt, id };
  } catch {
    return undefined;
  }
}

/** One keyset page of a tenant's proposals in one status, the soonest to expire first. */
export async function listProposals(
  db: Database,
  tenantId: string,
  options: { status: ProposalStatus; cursor?: QueueCursor; limit: number },
): Promise<{ items: Proposal[]; nextCursor: string | null }> {
  const after = options.cursor
    ? or(
        gt(proposals.expiresAt, new Date(options.cursor.expiresAt)),
        and(eq(proposals.expiresAt, new Date(options.cursor.expiresAt)), gt(proposals.id, options.cursor.id)),
      )
    : undefined;
  const rows = await db
    .select()
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.status, options.status), after))
    .orderBy(asc(proposals.expiresAt), asc(proposals.id))
    .limit(options.limit + 1);
  const items = rows.slice(0, options.limit);
  const last = items.at(-1);
  return {
    items,
    nextCursor: rows.length > options.limit && last ? encodeCursor({ expiresAt: last.expiresAt.toISOString(), id: last.id }) : null,
  };
}
