import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals, tenants } from '@/db/schema';
import { recordNotice } from '@/lib/events/record';

const minutes = (column: typeof tenants.reminderLeadMinutes | typeof tenants.escalateAfterMinutes) => sql`make_interval(mins => ${column})`;

/**
 * Writes the time-based notices (DESIGN.md §9) for pending proposals, once each: a reminder when a
 * proposal is within its tenant's lead time of expiry (only if it was created before that point,
 * so a short-lived proposal is not "reminded" at birth), and an escalation to admins when nobody
 * decided it within the tenant's escalation time. The UPDATE marks and claims in one statement, so
 * concurrent sweeps never write a notice twice.
 */
export async function sweepReminders(db: Database, now = new Date()): Promise<{ reminded: number; escalated: number }> {
  const at = sql`${now.toISOString()}::timestamptz`;
  return db.transaction(async (tx) => {
    const reminded = await tx
      .update(proposals)
      .set({ remindedAt: now })
      .from(tenants)
      .where(
        and(
          eq(tenants.id, proposals.tenantId),
          gt(tenants.reminderLeadMinutes, 0),
          eq(proposals.status, 'pending_approval'),
          isNull(proposals.remindedAt),
          sql`${proposals.expiresAt} > ${at}`,
          sql`${proposals.expiresAt} <= ${at} + ${minutes(tenants.reminderLeadMinutes)}`,
          sql`${proposals.expiresAt} - ${minutes(tenants.reminderLeadMinutes)} > ${proposals.createdAt}`,
        ),
      )
      .returning({ id: proposals.id, tenantId: proposals.tenantId });
    const escalated = await tx
      .update(proposals)
      .set({ escalatedAt: now })
      .from(tenants)
      .where(
        and(
          eq(tenants.id, proposals.tenantId),
          gt(tenants.escalateAfterMinutes, 0),
          eq(proposals.status, 'pending_approval'),
          isNull(proposals.escalatedAt),
          sql`${proposals.expiresAt} > ${at}`,
          sql`${proposals.createdAt} + ${minutes(tenants.escalateAfterMinutes)} <= ${at}`,
        ),
      )
      .returning({ id: proposals.id, tenantId: proposals.tenantId });
    for (const row of reminded) {
      await recordNotice(tx, { tenantId: row.tenantId, proposalId: row.id, topic: 'proposal.reminder', body: { proposalId: row.id, status: 'pending_approval' }, at: now });
    }
    for (const row of escalated) {
      await recordNotice(tx, { tenantId: row.tenantId, proposalId: row.id, topic: 'proposal.escalated', body: { proposalId: row.id, status: 'pending_approval' }, at: now });
    }
    return { reminded: reminded.length, escalated: escalated.length };
  });
}
