import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, type Proposal, proposals } from '@/db/schema';

/**
 * Everyone who counts as an initiator of a proposal (docs/design.md §6), so may not approve it: the
 * person its agent acts for, and every editor along its chain of revisions — not only the last.
 */
export async function initiatorsOf(
  db: Database,
  proposal: Pick<Proposal, 'id' | 'tenantId' | 'parentId' | 'initiatedByUserId' | 'agentKeyId'>,
): Promise<Set<string>> {
  const people = new Set<string>();
  if (proposal.agentKeyId) {
    const [key] = await db
      .select({ onBehalfOf: agentKeys.onBehalfOfUserId })
      .from(agentKeys)
      .where(eq(agentKeys.id, proposal.agentKeyId))
      .limit(1);
    if (key?.onBehalfOf) people.add(key.onBehalfOf);
  }
  const seen = new Set<string>([proposal.id]);
  let current: Pick<Proposal, 'parentId' | 'initiatedByUserId'> | undefined = proposal;
  while (current) {
    if (current.initiatedByUserId) people.add(current.initiatedByUserId);
    const parentId: string | null = current.parentId;
    // A chain never loops; if stored data ever did, stop rather than walk forever.
    if (!parentId || seen.has(parentId)) break;
    seen.add(parentId);
    [current] = await db
      .select({ parentId: proposals.parentId, initiatedByUserId: proposals.initiatedByUserId })
      .from(proposals)
      .where(and(eq(proposals.tenantId, proposal.tenantId), eq(proposals.id, parentId)))
      .limit(1);
  }
  return people;
}
