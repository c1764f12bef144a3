import { and, eq, gt, isNull, type SQL, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals, tenants } from '@/db/schema';
import { recordNotice } from '@/lib/events/record';

const minutes = (column: typeof tenants.reminderLeadMinutes | typeof tenants.escalateAfterMinutes) =>
  sql`make_interval(mins => ${column})`;

/**
 * One time-based notice: the tenant setting that turns it on, the proposal column that marks it sent, and when it is
 * due.
 */
type Notice = {
  topic: 'proposal.reminder' | 'proposal.escalated';
  setting: typeof tenants.reminderLeadMinutes | typeof tenants.escalateAfterMinutes;
  mark: 'remindedAt' | 'escalatedAt';
  due: (at: SQL) => SQL[];
};

const NOTICES: Notice[] = [
  {
    // Within the lead time of expiry, and only if the proposal existed before that point; none
    // while the tenant is paused, whose deadlines stand still (lib/commands/executions-pause.ts).
    topic: 'proposal.reminder',
    setting: tenants.reminderLeadMinutes,
    mark: 'remindedAt',
    due: (at) => [
      isNull(tenants.executionsPausedAt),
      sql`${proposals.expiresAt} <= ${at} + ${minutes(tenants.reminderLeadMinutes)}`,
      sql`${proposals.expiresAt} - ${minutes(tenants.reminderLeadMinutes)} > ${proposals.createdAt}`,
    ],
  },
  {
    // Nobody decided within the escalation time.
    topic: 'proposal.escalated',
    setting: tenants.escalateAfterMinutes,
    mark: 'escalatedAt',
    due: (at) => [sql`${proposals.createdAt} + ${minutes(tenants.escalateAfterMinutes)} <= ${at}`],
  },
];

/**
 * Writes the time-based notices (docs/design.md §9) for pending proposals, once each: a reminder when a
 * proposal is within its tenant's lead time of expiry (only if it was created before that point,
 * so a short-lived proposal is not "reminded" at birth), and an escalation to admins when nobody
 * decided it within the tenant's escalation time. The UPDATE marks and claims in one statement, so
 * concurrent sweeps never write a notice twice.
 */
export async function sweepReminders(db: Database, now = new Date()): Promise<{ reminded: number; escalated: number }> {
  const at = sql`${now.toISOString()}::timestamptz`;
  return db.transaction(async (tx) => {
    const counts: Record<Notice['topic'], number> = { 'proposal.reminder': 0, 'proposal.escalated': 0 };
    for (const notice of NOTICES) {
      const rows = await tx
        .update(proposals)
        .set({ [notice.mark]: now })
        .from(tenants)
        .where(
          and(
            eq(tenants.id, proposals.tenantId),
            gt(notice.setting, 0),
            eq(proposals.status, 'pending_approval'),
            isNull(proposals[notice.mark]),
            sql`${proposals.expiresAt} > ${at}`,
            ...notice.due(at),
          ),
        )
        .returning({ id: proposals.id, tenantId: proposals.tenantId });
      for (const row of rows) {
        await recordNotice(tx, {
          tenantId: row.tenantId,
          proposalId: row.id,
          topic: notice.topic,
          body: { proposalId: row.id, status: 'pending_approval' },
          at: now,
        });
      }
      counts[notice.topic] = rows.length;
    }
    return { reminded: counts['proposal.reminder'], escalated: counts['proposal.escalated'] };
  });
}
