import { type SQL, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, auditPending, users } from '@/db/schema';
import type { AuditEventType } from '@/lib/events/registry';

export const GENESIS_HASH = 'sha256:genesis';

export type AuditInput = {
  tenantId: string;
  type: AuditEventType;
  /** `name`, when the caller already holds the actor's current name (read server-side), saves the look-up. */
  actor: { type: 'user' | 'agent' | 'system'; id: string; name?: string };
  proposalId?: string;
  payloadHash?: string;
  reasonCode?: string;
  contractVersion?: number;
  data?: Record<string, string | number | boolean | null>;
  occurredAt?: Date;
};

/**
 * The fields a row's hash covers, in the shape a verifier rebuilds from an export. `actorName` is
 * covered when present: events written before names were recorded keep the hash they were written with.
 */
export function auditHashInput(row: {
  tenantId: string;
  seq: number;
  type: string;
  actorType: string;
  actorId: string;
  actorName?: string | null;
  proposalId: string | null;
  payloadHash: string | null;
  reasonCode: string | null;
  contractVersion: number | null;
  data: Record<string, unknown>;
  occurredAt: string;
  prevHash: string;
}) {
  const { actorName, ...always } = row;
  return { ...always, ...(actorName != null ? { actorName } : {}), occurredAt: new Date(row.occurredAt).toISOString() };
}

/**
 * The actor's display name now, to record in the event, as SQL sent with the insert (no round trip
 * of its own): a user's name, an agent key's agent; a system actor is its id.
 */
function actorNameOf(tenantId: string, actor: AuditInput['actor']): SQL | string | null {
  if (actor.type === 'system') return actor.id;
  if (actor.name !== undefined) return actor.name;
  return actor.type === 'user'
    ? sql`(select ${users.name} from ${users} where ${users.id} = ${actor.id})`
    : sql`(select ${agentKeys.agentName} from ${agentKeys}
        where ${agentKeys.id} = ${actor.id} and ${agentKeys.tenantId} = ${tenantId})`;
}

/**
 * The channel a recorded event notifies on, its payload the tenant id: the worker chains that tenant
 * (lib/events/chainer.ts).
 */
export const AUDIT_CHANNEL = 'countersign_audit';

/**
 * Records one event of the tenant's audit trail, to be linked into its hash chain right after the
 * transaction commits (docs/evidence.md, "How events are chained"). Call it inside the transaction
 * that makes the change it records; it touches no row another transaction writes, so concurrent
 * state changes of one tenant never wait on each other here. One statement: the pending row, the
 * actor's name looked up with it, and a NOTIFY that PostgreSQL delivers when the transaction
 * commits (never on rollback). State changes go through `recordStateChange` (lib/events/record.ts),
 * which writes their outbox row with it.
 */
export async function appendAudit(tx: Database, input: AuditInput): Promise<void> {
  const pending = tx
    .insert(auditPending)
    .values({
      tenantId: input.tenantId,
      type: input.type,
      actorType: input.actor.type,
      actorId: input.actor.id,
      actorName: actorNameOf(input.tenantId, input.actor),
      proposalId: input.proposalId ?? null,
      payloadHash: input.payloadHash ?? null,
      reasonCode: input.reasonCode ?? null,
      contractVersion: input.contractVersion ?? null,
      data: input.data ?? {},
      occurredAt: (input.occurredAt ?? new Date()).toISOString(),
    })
    .returning({ tenantId: auditPending.tenantId });
  await tx.execute(
    sql`with pending as (${pending.getSQL()}) select pg_notify(${AUDIT_CHANNEL}, tenant_id) from pending`,
  );
}
