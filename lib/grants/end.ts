import { and, asc, eq, gt, isNull, type SQL } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Grant, grants, memberships, users } from '@/db/schema';
import { roleAtLeast } from '@/lib/auth/roles';
import { notFound, Refusal } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { isGrantId } from '@/lib/ids';
import { type GrantView, grantView } from './list';
import { grantState } from './terms';

type Ender = { type: 'user' | 'system'; id: string };
type EndReason = NonNullable<Grant['endReason']>;

/**
 * Ends the live grants `where` selects (locked in id order, so two enders never deadlock), each
 * audited `grant.revoked` or `grant.ended`, in the caller's transaction: from its commit on no
 * intake is covered by them (lib/grants/cover.ts reads `ended_at` under the grant's lock).
 */
async function endGrants(
  tx: Database,
  where: SQL | undefined,
  end: { reason: EndReason; by: Ender; note?: string },
  now: Date,
): Promise<Grant[]> {
  const live = await tx
    .select()
    .from(grants)
    .where(and(where, isNull(grants.endedAt), gt(grants.expiresAt, now)))
    .orderBy(asc(grants.id))
    .for('update');
  const ended: Grant[] = [];
  for (const grant of live) {
    const [row] = await tx
      .update(grants)
      .set({
        endedAt: now,
        endReason: end.reason,
        endedBy: end.by.type === 'user' ? end.by.id : null,
        endNote: end.note ?? null,
      })
      .where(eq(grants.id, grant.id))
      .returning();
    if (!row) continue;
    ended.push(row);
    await recordStateChange(tx, {
      tenantId: row.tenantId,
      type: end.reason === 'revoked' ? 'grant.revoked' : 'grant.ended',
      actor: end.by,
      reasonCode: end.reason,
      data: {
        grant: row.id,
        used: row.usedCount,
        usedTotalMinor: row.usedTotalMinor,
        ...(end.note ? { note: end.note } : {}),
      },
      occurredAt: now,
      outbox: false,
    });
  }
  return ended;
}

/** Who revokes: a person in the tenant they act in (its granter or an admin), or the operator's CLI (any tenant). */
export type Revoker = { type: 'user'; id: string; tenantId: string } | { type: 'system'; id: string };

/**
 * Ends a grant at once (`POST /api/v1/grants/:id/revoke`, `grants:revoke`). A person must be its
 * granter or an admin of its tenant; another tenant's or an unknown grant is 404 for them; one
 * already ended, expired or used up is 409.
 */
export async function revokeGrant(
  db: Database,
  input: { by: Revoker; grantId: string; reason?: string },
  now = new Date(),
): Promise<GrantView> {
  const { by } = input;
  if (!isGrantId(input.grantId)) throw notFound('grant');
  return db.transaction(async (tx) => {
    const [found] = await tx
      .select({ grant: grants, role: memberships.role, granter: users.name })
      .from(grants)
      .leftJoin(memberships, and(eq(memberships.tenantId, grants.tenantId), eq(memberships.userId, by.id)))
      .leftJoin(users, eq(users.id, grants.grantedBy))
      .where(and(eq(grants.id, input.grantId), by.type === 'user' ? eq(grants.tenantId, by.tenantId) : undefined))
      .for('update', { of: grants });
    if (!found || (by.type === 'user' && !found.role)) throw notFound('grant');
    const { grant, role } = found;
    if (by.type === 'user' && grant.grantedBy !== by.id && !(role && roleAtLeast(role, 'admin'))) {
      throw new Refusal('forbidden_role', 'Only the person who granted it or an admin may revoke a grant.');
    }
    const state = grantState(grant, now);
    if (state !== 'active')
      throw new Refusal(
        'grant_ended',
        `This grant no longer covers anything (${state.replace('_', ' ')}); nothing was changed.`,
      );
    const [ended] = await endGrants(
      tx,
      eq(grants.id, grant.id),
      { reason: 'revoked', by: { type: by.type, id: by.id }, note: input.reason },
      now,
    );
    if (!ended) throw new Error('locked grant vanished');
    return grantView(ended, found.granter, now);
  });
}

/** A granter's role changed or they left the tenant: their grants there end in the same transaction. */
export function endGrantsOfGranter(
  tx: Database,
  input: { tenantId: string; userId: string; reason: 'role_changed' | 'granter_removed'; by: Ender },
  now = new Date(),
) {
  return endGrants(
    tx,
    and(eq(grants.tenantId, input.tenantId), eq(grants.grantedBy, input.userId)),
    { reason: input.reason, by: input.by },
    now,
  );
}

/** A new policy for the action took effect: grants made under an older one end in the same transaction. */
export function endGrantsOfAction(
  tx: Database,
  input: { tenantId: string; action: string; by: Ender },
  now = new Date(),
) {
  return endGrants(
    tx,
    and(eq(grants.tenantId, input.tenantId), eq(grants.action, input.action)),
    { reason: 'policy_changed', by: input.by },
    now,
  );
}

/** The tenant now requires a passkey on every approval: all its grants end in the same transaction. */
export function endGrantsOfTenant(tx: Database, input: { tenantId: string; by: Ender }, now = new Date()) {
  return endGrants(tx, eq(grants.tenantId, input.tenantId), { reason: 'policy_changed', by: input.by }, now);
}
