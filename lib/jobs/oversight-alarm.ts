import { and, asc, gt, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { oversightAlarms, tenants } from '@/db/schema';
import { recordStateChange } from '@/lib/events/record';
import { approverFigures, OVERSIGHT_DEFAULT_DAYS } from '@/lib/oversight/figures';

/** Tenants read per page of the sweep (keyset by id). */
const TENANTS_PER_PAGE = 100;

/** The start (Monday 00:00 UTC) of the calendar week `at` falls in: the window an alarm is raised once in. */
export function alarmWindowStart(at: Date): Date {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * 86_400_000);
}

/**
 * The rubber-stamp alarm (docs/oversight.md): for every tenant whose settings are all above 0, the
 * approvers whose decisions of the last 7 days meet all three thresholds (at least N decisions, an
 * approval rate at or above R%, a median dwell under S seconds) get one `oversight.rubber_stamp`
 * event and notice for admins per calendar week (UTC). The claim row (primary key tenant, person,
 * week) is inserted in the same transaction as the event: of any number of concurrent runs, one
 * inserts it and writes the notice; the others insert nothing and write nothing.
 */
export async function raiseRubberStampAlarms(db: Database, now = new Date()): Promise<{ raised: number }> {
  const windowStart = alarmWindowStart(now);
  const from = new Date(now.getTime() - OVERSIGHT_DEFAULT_DAYS * 86_400_000);
  let raised = 0;
  let after = '';
  for (;;) {
    const page = await db
      .select({
        id: tenants.id,
        minDecisions: tenants.oversightMinDecisions,
        approvalRatePercent: tenants.oversightApprovalRatePercent,
        medianDwellSeconds: tenants.oversightMedianDwellSeconds,
      })
      .from(tenants)
      .where(
        and(
          gt(tenants.id, after),
          sql`${tenants.oversightMinDecisions} > 0 and ${tenants.oversightApprovalRatePercent} > 0
            and ${tenants.oversightMedianDwellSeconds} > 0`,
        ),
      )
      .orderBy(asc(tenants.id))
      .limit(TENANTS_PER_PAGE);
    for (const { id: tenantId, ...settings } of page) {
      const flagged = (await approverFigures(db, tenantId, from, now, settings)).filter(
        (approver) => approver.rubberStamp,
      );
      for (const approver of flagged) {
        const wrote = await db.transaction(async (tx) => {
          const claimed = await tx
            .insert(oversightAlarms)
            .values({
              tenantId,
              userId: approver.userId,
              windowStart,
              windowDays: OVERSIGHT_DEFAULT_DAYS,
              decisions: approver.decisions,
              approvalRate: approver.approvalRate.toFixed(4),
              medianDwellMs: approver.dwellP50Ms ?? 0,
              createdAt: now,
            })
            .onConflictDoNothing()
            .returning({ userId: oversightAlarms.userId });
          if (claimed.length === 0) return false;
          const facts = {
            userId: approver.userId,
            approver: approver.name,
            decisions: approver.decisions,
            approvalPercent: Math.round(approver.approvalRate * 1000) / 10,
            medianDwellMs: approver.dwellP50Ms ?? 0,
            days: OVERSIGHT_DEFAULT_DAYS,
            windowStart: windowStart.toISOString(),
          };
          await recordStateChange(tx, {
            tenantId,
            type: 'oversight.rubber_stamp',
            actor: { type: 'system', id: 'oversight' },
            occurredAt: now,
            data: facts,
            outbox: { topic: 'oversight.rubber_stamp', body: facts },
          });
          return true;
        });
        if (wrote) raised++;
      }
    }
    if (page.length < TENANTS_PER_PAGE) return { raised };
    after = page.at(-1)!.id;
  }
}
