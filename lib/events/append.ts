import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, auditEvents, auditHeads, users } from '@/db/schema';
import type { AuditEventType } from '@/lib/events/registry';
import { payloadHash } from '@/lib/payload-hash';

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

/** The actor's display name now, to record in the event: a user's name, an agent key's agent; a system actor is its id. */
async function actorNameOf(tx: Database, tenantId: string, actor: AuditInput['actor']): Promise<string | null> {
  if (actor.type === 'system') return actor.id;
  if (actor.name !== undefined) return actor.name;
  const [row] =
    actor.type === 'user'
      ? await tx.select({ name: users.name }).from(users).where(eq(users.id, actor.id)).limit(1)
      : await tx.select({ name: agentKeys.agentName }).from(agentKeys).where(and(eq(agentKeys.id, actor.id), eq(agentKeys.tenantId, tenantId))).limit(1);
  return row?.name ?? null;
}

/**
 * Appends one event to the tenant's hash chain. Call it inside the transaction that makes the
 * change it records: the head row lock orders concurrent appends within a tenant. State changes
 * go through `recordStateChange` (lib/events/record.ts), which writes their outbox row with it.
 */
export async function appendAudit(tx: Database, input: AuditInput): Promise<{ seq: number; hash: string }> {
  // One statement creates the head if needed and locks it (an upsert locks the row it returns):
  // from here to commit, concurrent appends of this tenant wait, so the rest is one more statement.
  // The name lookup needs no lock: it is sent with the upsert.
  const [actorName, [head]] = await Promise.all([
    actorNameOf(tx, input.tenantId, input.actor),
    tx
      .insert(auditHeads)
      .values({ tenantId: input.tenantId, seq: 0, hash: GENESIS_HASH })
      .onConflictDoUpdate({ target: auditHeads.tenantId, set: { seq: sql`${auditHeads.seq}` } })
      .returning(),
  ]);
  if (!head) throw new Error('audit head missing after upsert');

  const row = {
    tenantId: input.tenantId,
    seq: head.seq + 1,
    type: input.type,
    actorType: input.actor.type,
    actorId: input.actor.id,
    actorName,
    proposalId: input.proposalId ?? null,
    payloadHash: input.payloadHash ?? null,
    reasonCode: input.reasonCode ?? null,
    contractVersion: input.contractVersion ?? null,
    data: input.data ?? {},
    occurredAt: (input.occurredAt ?? new Date()).toISOString(),
    prevHash: head.hash,
  };
  const hash = payloadHash(auditHashInput(row));
  const insertEvent = tx.insert(auditEvents).values({ ...row, hash });
  const moveHead = tx.update(auditHeads).set({ seq: row.seq, hash }).where(eq(auditHeads.tenantId, input.tenantId));
  await tx.execute(sql`with appended as (${insertEvent.getSQL()}) ${moveHead.getSQL()}`);
  return { seq: row.seq, hash };
}

export async function auditTrailFor(db: Database, tenantId: string, proposalId: string) {
  return db
    .select()
    .from(auditEvents)
    .where(sql`${auditEvents.tenantId} = ${tenantId} and ${auditEvents.proposalId} = ${proposalId}`)
    .orderBy(auditEvents.seq);
}
