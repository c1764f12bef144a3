import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
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
export function proposalEventsOfType(
  db: Database,
  event: { tenantId: string; proposalId: string; type: AuditEventType },
) {
  const chained = eventsIn(db, auditEvents, event, 0, sql`${auditEvents.seq}`);
  const waiting = eventsIn(db, auditPending, event, 1, sql`${auditPending.id}`);
  return chained.unionAll(waiting).orderBy(sql`"pending"`, sql`"position"`);
}

function eventsIn(
  db: Database,
  table: typeof auditEvents | typeof auditPending,
  event: { tenantId: string; proposalId: string; type: AuditEventType },
  pending: 0 | 1,
  position: SQL,
) {
  return db
    .select({
      occurredAt: table.occurredAt,
      reasonCode: table.reasonCode,
      data: table.data,
      pending: sql<number>`${sql.raw(String(pending))}`.as('pending'),
      position: sql<number>`${position}`.as('position'),
    })
    .from(table)
    .where(and(eq(table.tenantId, event.tenantId), eq(table.proposalId, event.proposalId), eq(table.type, event.type)));
}
