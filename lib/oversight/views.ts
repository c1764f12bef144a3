import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { memberships, type Proposal, proposals, proposalViews, type ViewChannel } from '@/db/schema';
import { notFound } from '@/lib/errors/refusal';

/**
 * The query parameter a notification link carries (`/proposals/<id>?via=notification`), so the view it leads to is
 * counted as the notification's.
 */
export const VIA_NOTIFICATION = 'notification';

/**
 * The channel a server-rendered proposal page counts its view under: the notification's when the link says so, else the
 * page's.
 */
export function pageChannel(via: string | string[] | undefined): ViewChannel {
  return via === VIA_NOTIFICATION ? 'notification' : 'page';
}

export type ViewRecord = { userId: string; proposalId: string; channel: ViewChannel; at?: Date };

/**
 * Records when the server first served a proposal to a person (docs/oversight.md): the proposal page
 * as it renders, the operator API's read, the queue's re-check of one proposal; never a client's
 * report (a script could report looks that never happened). Once per person and proposal (the first
 * insert wins; later ones change nothing), and only while it waits for a decision, the only time a
 * first look can precede one. The person must be a member of the proposal's tenant, else 404 and
 * nothing is written: one statement, so neither is checked apart from the write.
 */
export async function recordView(db: Database, view: ViewRecord): Promise<{ recorded: boolean }> {
  const at = view.at ?? new Date();
  const rows = await db
    .select({ tenantId: proposals.tenantId, status: proposals.status })
    .from(proposals)
    .innerJoin(memberships, and(eq(memberships.tenantId, proposals.tenantId), eq(memberships.userId, view.userId)))
    .where(eq(proposals.id, view.proposalId));
  const proposal = rows[0];
  if (!proposal) throw notFound();
  if (proposal.status !== 'pending_approval') return { recorded: false };
  const inserted = await db
    .insert(proposalViews)
    .values({
      tenantId: proposal.tenantId,
      proposalId: view.proposalId,
      userId: view.userId,
      channel: view.channel,
      firstSeenAt: at,
    })
    .onConflictDoNothing()
    .returning({ at: sql`1` });
  return { recorded: inserted.length > 0 };
}

/**
 * The first look of a person a proposal they may read is being served to; a proposal that no longer waits costs no
 * query.
 */
export async function recordServed(
  db: Database,
  proposal: Pick<Proposal, 'id' | 'status'>,
  view: Omit<ViewRecord, 'proposalId'>,
): Promise<void> {
  if (proposal.status === 'pending_approval') await recordView(db, { ...view, proposalId: proposal.id });
}
