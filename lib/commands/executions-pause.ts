import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import type { Database } from '@/db';
import { proposals, tenants, users } from '@/db/schema';
import type { Actor } from '@/lib/admin/agent-keys';
import { recordStateChange } from '@/lib/events/record';
import { wakeDispatchOnCommit } from './wake';

/**
 * The tenant's emergency stop (docs/design.md §7). While paused, approved commands wait: dispatch
 * skips the tenant and the executor defers (never consumes) a command that still arrives. No
 * expiry is counted: the sweep skips the tenant, and resuming moves every pending proposal's
 * deadline on by the time paused. A command whose five minutes ran out meanwhile is refused
 * `expired` after the resume and replaced by a fresh one (dispatch's renewal), since its
 * proposal is still approved.
 */
export type ExecutionsState = {
  paused: boolean;
  pausedAt: Date | null;
  pausedBy: { id: string; name: string | null } | null;
  reason: string | null;
};

const RUNNING: ExecutionsState = { paused: false, pausedAt: null, pausedBy: null, reason: null };

export const pauseInput = z.strictObject({ reason: z.string().trim().min(1).max(500).optional() });
export type PauseInput = z.infer<typeof pauseInput>;

/** Whether the tenant is paused, its row taken FOR SHARE: a pause waits for an execution that has begun to start. */
export async function executionsPaused(tx: Database, tenantId: string): Promise<boolean> {
  const [row] = await tx
    .select({ pausedAt: tenants.executionsPausedAt })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .for('share');
  return Boolean(row?.pausedAt);
}

/** SQL: the row's tenant is not paused (dispatch and the expiry sweep leave paused tenants alone). */
export const tenantRunning = (tenantId: AnyPgColumn) =>
  sql`not exists (select 1 from ${tenants}
    where ${tenants.id} = ${tenantId} and ${isNotNull(tenants.executionsPausedAt)})`;

/** The tenant's stop state with the pauser's name (undefined when there is no such tenant). */
export async function executionsState(db: Database, tenantId: string): Promise<ExecutionsState | undefined> {
  const [row] = await db
    .select({
      pausedAt: tenants.executionsPausedAt,
      by: tenants.executionsPausedBy,
      reason: tenants.executionsPauseReason,
      name: users.name,
    })
    .from(tenants)
    .leftJoin(users, eq(users.id, tenants.executionsPausedBy))
    .where(eq(tenants.id, tenantId));
  if (!row) return undefined;
  if (!row.pausedAt) return RUNNING;
  return { paused: true, pausedAt: row.pausedAt, pausedBy: { id: row.by ?? '', name: row.name }, reason: row.reason };
}

type Change = { changed: boolean; state: ExecutionsState } | undefined;

/** Pauses the tenant's executions (audited `executions.paused`); pausing a paused tenant changes nothing. */
export async function pauseExecutions(
  db: Database,
  tenantId: string,
  actor: Actor,
  input: PauseInput,
  now = new Date(),
): Promise<Change> {
  const changed = await db.transaction(async (tx) => {
    const [tenant] = await tx
      .select({ pausedAt: tenants.executionsPausedAt })
      .from(tenants)
      .where(eq(tenants.id, tenantId))
      .for('update');
    if (!tenant) return undefined;
    if (tenant.pausedAt) return false;
    await tx
      .update(tenants)
      .set({ executionsPausedAt: now, executionsPausedBy: actor.id, executionsPauseReason: input.reason ?? null })
      .where(eq(tenants.id, tenantId));
    await recordStateChange(tx, {
      tenantId,
      type: 'executions.paused',
      actor,
      data: { reason: input.reason ?? null },
      occurredAt: now,
      outbox: false,
    });
    return true;
  });
  return changed === undefined ? undefined : { changed, state: (await executionsState(db, tenantId))! };
}

/**
 * Resumes the tenant's executions (audited `executions.resumed`): pending proposals' deadlines
 * move on by the time paused, and dispatch is woken for the commands that waited. Resuming a
 * running tenant changes nothing.
 */
export async function resumeExecutions(
  db: Database,
  tenantId: string,
  actor: Actor,
  now = new Date(),
): Promise<Change> {
  const changed = await db.transaction(async (tx) => {
    const [tenant] = await tx
      .select({ pausedAt: tenants.executionsPausedAt })
      .from(tenants)
      .where(eq(tenants.id, tenantId))
      .for('update');
    if (!tenant) return undefined;
    if (!tenant.pausedAt) return false;
    const pausedMs = Math.max(0, now.getTime() - tenant.pausedAt.getTime());
    const extended = await tx
      .update(proposals)
      .set({ expiresAt: sql`${proposals.expiresAt} + make_interval(secs => ${pausedMs / 1000})` })
      .where(and(eq(proposals.tenantId, tenantId), eq(proposals.status, 'pending_approval')))
      .returning({ id: proposals.id });
    await tx
      .update(tenants)
      .set({ executionsPausedAt: null, executionsPausedBy: null, executionsPauseReason: null })
      .where(eq(tenants.id, tenantId));
    await recordStateChange(tx, {
      tenantId,
      type: 'executions.resumed',
      actor,
      data: {
        pausedAt: tenant.pausedAt.toISOString(),
        pausedSeconds: Math.round(pausedMs / 1000),
        deadlinesMoved: extended.length,
      },
      occurredAt: now,
      outbox: false,
    });
    await wakeDispatchOnCommit(tx);
    return true;
  });
  return changed === undefined ? undefined : { changed, state: RUNNING };
}
