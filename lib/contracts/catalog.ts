import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { contractRollouts } from '@/db/schema';
import type { ActionModule, ContractVersion } from '@/lib/actions/types';
import type { RolloutRow } from './rollout';

const rolloutColumns = {
  action: contractRollouts.action,
  version: contractRollouts.version,
  status: contractRollouts.status,
  sunsetAt: contractRollouts.sunsetAt,
  updatedAt: contractRollouts.updatedAt,
};

export async function rolloutRows(db: Database, tenantId: string, action?: string): Promise<RolloutRow[]> {
  return db
    .select(rolloutColumns)
    .from(contractRollouts)
    .where(and(eq(contractRollouts.tenantId, tenantId), action ? eq(contractRollouts.action, action) : undefined));
}

/**
 * The response headers an agent gets for using a supported (deprecated) version: `Deprecation`
 * (RFC 9745, `@<unix seconds>` of when it stopped being current, when known) and `Sunset`
 * (RFC 8594, an HTTP-date) once an admin announced its end.
 */
export function deprecationHeaders(
  contract: Pick<ContractVersion, 'status' | 'since' | 'sunsetAt'> | undefined,
): Record<string, string> {
  if (contract?.status !== 'supported') return {};
  const headers: Record<string, string> = {};
  if (contract.since) headers.Deprecation = `@${Math.floor(contract.since.getTime() / 1000)}`;
  if (contract.sunsetAt) headers.Sunset = contract.sunsetAt.toUTCString();
  return headers;
}

/** The headers for an action's version among a tenant's actions as `tenantActions` read them. */
export function deprecationHeadersIn(
  actions: readonly ActionModule[],
  action: string,
  version: number,
): Record<string, string> {
  return deprecationHeaders(actions.find((a) => a.name === action)?.contracts.find((c) => c.version === version));
}
