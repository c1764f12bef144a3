import { and, eq, type SQL } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Proposal, proposals } from '@/db/schema';

/** Finding one proposal: by id in a tenant, the tenant of an id, or by an agent key's request id. */

async function firstProposal(db: Database, where: SQL | undefined): Promise<Proposal | undefined> {
  const [row] = await db.select().from(proposals).where(where).limit(1);
  return row;
}

export async function getProposal(db: Database, tenantId: string, id: string): Promise<Proposal | undefined> {
  return firstProposal(db, and(eq(proposals.tenantId, tenantId), eq(proposals.id, id)));
}

/** Only for finding which tenant to check membership in; never return it without that check. */
export async function tenantOfProposal(db: Database, id: string): Promise<string | undefined> {
  const [row] = await db.select({ tenantId: proposals.tenantId }).from(proposals).where(eq(proposals.id, id)).limit(1);
  return row?.tenantId;
}

/** The proposal an agent key made under a requestId (its idempotency key), if any. */
export async function proposalByRequestId(
  db: Database,
  agentKeyId: string,
  requestId: string,
): Promise<Proposal | undefined> {
  return firstProposal(db, and(eq(proposals.agentKeyId, agentKeyId), eq(proposals.requestId, requestId)));
}
