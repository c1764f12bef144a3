import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { contractRollouts } from '@/db/schema';
import { allActions } from '@/lib/actions/registry';
import type { ActionModule, ContractVersion } from '@/lib/actions/types';
import { cachedRead, cacheTag } from '@/lib/cache/read-cache';
import { type RolloutRow, withRollout } from './rollout';

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
 * Every action as this tenant has it: the module's contract versions with the tenant's statuses
 * and sunsets. Intake, `GET /api/v1/contracts`, the Contracts page and revisions all read this,
 * never the module defaults alone. The process's read cache keeps it until a change to the
 * tenant's rollout is announced (`contracts` changes, lib/contracts/set-status.ts).
 */
export function tenantActions(db: Database, tenantId: string): Promise<readonly ActionModule[]> {
  const tag = cacheTag.contracts(tenantId);
  return cachedRead(
    db,
    tag,
    async () => withRollouts(await rolloutRows(db, tenantId)),
    () => [tag],
  );
}

const withRollouts = (rows: readonly RolloutRow[]) => allActions().map((action) => withRollout(action, rows));

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

/** The headers for an action's version in a tenant (GET of a proposal). */
export async function deprecationHeadersFor(
  db: Database,
  tenantId: string,
  action: string,
  version: number,
): Promise<Record<string, string>> {
  return deprecationHeadersIn(await tenantActions(db, tenantId), action, version);
}
