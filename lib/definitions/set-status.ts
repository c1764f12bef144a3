import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { contractRollouts, tenants } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';
import { changeTransaction } from '@/lib/cache/read-cache';
import { rolloutRows } from '@/lib/contracts/catalog';
import { planTransition, type TransitionRequest, withRollout } from '@/lib/contracts/rollout';
import { notFound } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { tenantAction } from './catalog';

export type StatusChange = {
  tenantId: string;
  userId: string;
  action: string;
  version: number;
  request: TransitionRequest;
};

/**
 * An admin moves one contract version of an action in their tenant (lib/contracts/rollout.ts has
 * the state machine). One transaction: the tenant row is locked so two admins cannot both promote,
 * the rows are written (a promotion also demotes the old current to supported), and one
 * `contract.status_changed` event records it. A row's `updated_at` is when the version entered
 * its status — the `Deprecation` date of a supported one — so a sunset change keeps it; the
 * audit trail records who set the sunset and when. Every process's read cache forgets the
 * tenant's rollout when it commits. Answers the action as the tenant now has it.
 */
export async function setContractStatus(
  db: Database,
  change: StatusChange,
  now = new Date(),
): Promise<{ action: ActionModule; changed: boolean }> {
  const declared = await tenantAction(db, change.tenantId, change.action);
  if (!declared) throw notFound('action');
  return changeTransaction(db, async (tx, announce) => {
    const [tenant] = await tx
      .select({ id: tenants.id })
      .from(tenants)
      .where(eq(tenants.id, change.tenantId))
      .for('update');
    if (!tenant) throw notFound('tenant');
    const before = withRollout(declared, await rolloutRows(tx, change.tenantId, declared.name));
    const plan = planTransition(before, change.version, change.request, now);
    if (!plan.ok) throw plan.error;
    if (plan.changes.length === 0) return { action: before, changed: false };
    for (const row of plan.changes) {
      const previous = before.contracts.find((contract) => contract.version === row.version);
      // A sunset change keeps when the version entered its status.
      const since = row.statusChanged ? now : (previous?.since ?? now);
      await tx
        .insert(contractRollouts)
        .values({
          tenantId: change.tenantId,
          action: declared.name,
          version: row.version,
          status: row.status,
          sunsetAt: row.sunsetAt,
          updatedByUserId: change.userId,
          updatedAt: since,
        })
        .onConflictDoUpdate({
          target: [contractRollouts.tenantId, contractRollouts.action, contractRollouts.version],
          set: {
            status: row.status,
            sunsetAt: row.sunsetAt,
            ...(row.statusChanged ? { updatedByUserId: change.userId, updatedAt: since } : {}),
          },
        });
    }
    await announce({ kind: 'contracts', tenantId: change.tenantId, action: declared.name });
    const target = plan.changes.find((row) => row.version === change.version);
    await recordStateChange(tx, {
      tenantId: change.tenantId,
      type: 'contract.status_changed',
      actor: { type: 'user', id: change.userId },
      reasonCode: change.request.status,
      contractVersion: change.version,
      data: {
        action: declared.name,
        version: change.version,
        from: plan.from,
        to: change.request.status,
        sunsetAt: target?.sunsetAt?.toISOString() ?? null,
        demotedToSupported: plan.demoted,
      },
      occurredAt: now,
      outbox: false,
    });
    return { action: withRollout(declared, await rolloutRows(tx, change.tenantId, declared.name)), changed: true };
  });
}
