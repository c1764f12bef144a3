import { and, asc, eq, lte } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals } from '@/db/schema';
import { tenantRunning } from '@/lib/commands/executions-pause';
import { EXPIRY_ACTOR, endProposal, expiryReason } from '@/lib/decisions/transitions';
import { lockClaimsOf } from '@/lib/gates/claims';

/** At most this many batches per sweep, so one sweep cannot run forever under a flood. */
const MAX_BATCHES = 50;

/**
 * Moves overdue pending proposals to `expired` — never to anything else: a timeout never approves.
 * Each batch claims its rows with FOR UPDATE SKIP LOCKED, so parallel sweeps (or a decision holding
 * a row) never process a proposal twice; each proposal gets its audit event and outbox row in the
 * batch's transaction. A paused tenant's clock stands still: its proposals are left alone, and
 * resuming moves their deadlines on. Rows are taken in tenant order, so audit chain heads are locked in one order.
 * Answers how many proposals it expired.
 */
export async function expireOverdue(db: Database, now = new Date(), limit = 100): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const claimed = await db.transaction(async (tx) => {
      const rows = await tx
        .select()
        .from(proposals)
        .where(
          and(
            eq(proposals.status, 'pending_approval'),
            lte(proposals.expiresAt, now),
            tenantRunning(proposals.tenantId),
          ),
        )
        .orderBy(asc(proposals.tenantId), asc(proposals.id))
        .limit(limit)
        .for('update', { skipLocked: true });
      await lockClaimsOf(tx, rows);
      for (const row of rows) {
        await endProposal(
          tx,
          row,
          { status: 'expired', reason: expiryReason(row), actor: EXPIRY_ACTOR, reasonCode: 'expired' },
          now,
        );
      }
      return rows.length;
    });
    total += claimed;
    if (claimed < limit) break;
  }
  return total;
}
