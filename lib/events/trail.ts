import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { auditEvents, auditPending } from '@/db/schema';
import { chainPending } from './chainer';
import type { AuditEventType } from './registry';

/** A proposal's audit events in chain order, including those committed and not yet chained (they are chained first). */
export async function auditTrailFor(db: Database, tenantId: string, proposalId: string) {
  await chainPending(db, tenantId);
  return db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.proposalId, proposalId)))
    .orderBy(asc(auditEvents.seq));
}

/**
 * One proposal's events of one type, chained or still pending, in chain order (a pending event
 * follows every chained one), read in one statement: a row the chainer moves meanwhile is seen in
 * exactly one of the two tables. For reads that must not chain first: inside a state change's
 * transaction (chaining there would lock the tenant's head in it), or on paths an agent polls.
 */
export function proposalEventsOfType(db: Database, event: { tenantId: string; proposalId: string; type: AuditEventType }) {
  const chained = db
    .select({
      occurredAt: auditEvents.occurredAt,
      reasonCode: auditEvents.reasonCode,
      data: auditEvents.data,
      pending: sql<number>`0`.as('pending'),
      position: sql<number>`${auditEvents.seq}`.as('position'),
    })
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, event.tenantId), eq(auditEvents.proposalId, event.proposalId), eq(auditEvents.type, event.type)));
  const waiting = db
    .select({
      occurredAt: auditPending.occurredAt,
      reasonCode: auditPending.reasonCode,
      data: auditPending.data,
      pending: sql<number>`1`.as('pending'),
      position: sql<number>`${auditPending.id}`.as('position'),
    })
    .from(auditPending)
    .where(and(eq(auditPending.tenantId, event.tenantId), eq(auditPending.proposalId, event.proposalId), eq(auditPending.type, event.type)));
  return chained.unionAll(waiting).orderBy(sql`"pending"`, sql`"position"`);
}
