import 'server-only';
import { and, desc, eq, gte, inArray, max, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { intakeAttempts } from '@/db/schema';
import type { ActionModule, ContractStatus } from '@/lib/actions/types';
import { versionStatus } from './documents';

/** How far back "still sending" looks. */
export const SENDERS_WINDOW_DAYS = 30;

export type Sender = { version: number; agentKeyId: string; agentName: string; lastAt: string; attempts: number };

/** The agents (keys) that sent each version of an action in the last 30 days, most recent first. */
export async function versionSenders(
  db: Database,
  tenantId: string,
  action: ActionModule,
  now = new Date(),
): Promise<Sender[]> {
  const since = new Date(now.getTime() - SENDERS_WINDOW_DAYS * 86_400_000);
  const last = max(intakeAttempts.createdAt);
  const rows = await db
    .select({
      version: sql<number>`${intakeAttempts.contractVersion}`,
      agentKeyId: sql<string>`${intakeAttempts.agentKeyId}`,
      agentName: sql<string>`max(${intakeAttempts.agentName})`,
      lastAt: last,
      attempts: sql<number>`count(*)::int`,
    })
    .from(intakeAttempts)
    .where(
      and(
        eq(intakeAttempts.tenantId, tenantId),
        eq(intakeAttempts.action, action.name),
        inArray(
          intakeAttempts.contractVersion,
          action.contracts.map((contract) => contract.version),
        ),
        gte(intakeAttempts.createdAt, since),
        sql`${intakeAttempts.agentKeyId} is not null`,
      ),
    )
    .groupBy(intakeAttempts.contractVersion, intakeAttempts.agentKeyId)
    .orderBy(desc(last));
  return rows.map((row) => ({ ...row, lastAt: (row.lastAt ?? now).toISOString() }));
}

export type RolloutVersion = {
  version: number;
  status: ContractStatus;
  since: string | null;
  sunsetAt: string | null;
  senders: Omit<Sender, 'version'>[];
};
export type RolloutAction = { action: string; title: string; versions: RolloutVersion[] };

/** `GET /api/v1/admin/contracts`: each action's versions as the tenant has them, with their senders. */
export async function contractRollout(
  db: Database,
  tenantId: string,
  actions: readonly ActionModule[],
  now = new Date(),
): Promise<RolloutAction[]> {
  return Promise.all(
    actions.map(async (action) => {
      const senders = await versionSenders(db, tenantId, action, now);
      return {
        action: action.name,
        title: action.title,
        versions: action.contracts.map((contract) => ({
          ...versionStatus(contract),
          senders: senders
            .filter((s) => s.version === contract.version)
            .map(({ agentKeyId, agentName, lastAt, attempts }) => ({ agentKeyId, agentName, lastAt, attempts })),
        })),
      };
    }),
  );
}
