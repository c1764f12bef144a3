import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Membership, memberships, type Role, users } from '@/db/schema';
import { notFound, Refusal } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { endGrantsOfGranter } from '@/lib/grants/end';
import { withdrawApprovals } from '@/lib/quorum/quorum';

/**
 * A tenant's memberships: granting, changing and removing a role, for the CLI (lib/admin/accounts.ts),
 * invitations (./invitations.ts) and the members API. One rule holds everywhere: a tenant keeps at
 * least one admin, so nobody removes or demotes the last one.
 */

export type MemberActor = { type: 'user' | 'system'; id: string };

type Locked = { admins: number; membership: Membership | undefined };

/**
 * Locks the tenant's admin memberships, then the person's own, in this order every time: two admins
 * demoting each other at once queue on the same rows instead of deadlocking, and the second, on
 * PostgreSQL's re-check of the locked rows, no longer counts the first as an admin.
 */
async function lockMembership(tx: Database, tenantId: string, userId: string): Promise<Locked> {
  const admins = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.role, 'admin')))
    .orderBy(asc(memberships.userId))
    .for('update');
  const [membership] = await tx
    .select()
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)))
    .for('update');
  return { admins: admins.length, membership };
}

function refuseLastAdmin({ admins, membership }: Locked, tenantId: string, staysAdmin: boolean) {
  if (membership?.role === 'admin' && !staysAdmin && admins <= 1) {
    throw new Refusal('last_admin', `This is the last admin of ${tenantId}; make someone else admin first.`);
  }
}

const notMember = (tenantId: string) => new Refusal('not_member', `That person is not a member of ${tenantId}.`);

type Grant = { tenantId: string; userId: string; role: Role; actor: MemberActor; data?: Record<string, string> };

async function writeRole(tx: Database, input: Grant, locked: Locked) {
  refuseLastAdmin(locked, input.tenantId, input.role === 'admin');
  const previousRole = locked.membership?.role ?? null;
  await tx
    .insert(memberships)
    .values({ tenantId: input.tenantId, userId: input.userId, role: input.role })
    .onConflictDoUpdate({ target: [memberships.tenantId, memberships.userId], set: { role: input.role } });
  // A new member, or a changed role: `previousRole` tells them apart (null for a new member). The
  // change is recorded before what it causes, so the trail reads cause, then consequences.
  await recordStateChange(tx, {
    tenantId: input.tenantId,
    type: 'membership.granted',
    actor: input.actor,
    reasonCode: input.role,
    data: { user: input.userId, role: input.role, previousRole, ...input.data },
    outbox: false,
  });
  // A changed role ends the person's standing grants here at once (docs/grants.md), and their
  // approvals on waiting proposals whose rule it no longer meets (docs/design.md §6).
  if (previousRole !== null && previousRole !== input.role) {
    await endGrantsOfGranter(tx, {
      tenantId: input.tenantId,
      userId: input.userId,
      reason: 'role_changed',
      by: input.actor,
    });
    await withdrawApprovals(tx, { tenantId: input.tenantId, userId: input.userId, role: input.role, by: input.actor });
  }
  return { userId: input.userId, tenantId: input.tenantId, role: input.role, previousRole };
}

/**
 * An account made from one tenant's invitation belongs to that tenant only until its person proves
 * the address: whoever chose its password may be that tenant's admin, not the address's owner.
 */
async function refuseConfined(tx: Database, tenantId: string, userId: string) {
  const [user] = await tx
    .select({ verifiedAt: users.emailVerifiedAt, home: users.createdByTenantId })
    .from(users)
    .where(eq(users.id, userId));
  if (user && !user.verifiedAt && user.home !== null && user.home !== tenantId) {
    throw new Refusal(
      'address_unverified',
      'This account may join another team only once its person proves the address with a code sent to it.',
    );
  }
}

/**
 * Gives a person a role in the tenant, in the caller's transaction (audited `membership.granted`).
 * `onlyNew` refuses someone who already belongs (`already_member`), for invitations; an account
 * confined to another tenant is refused (`address_unverified`).
 */
export async function grantMembership(tx: Database, input: Grant & { onlyNew?: boolean }) {
  await refuseConfined(tx, input.tenantId, input.userId);
  const locked = await lockMembership(tx, input.tenantId, input.userId);
  if (input.onlyNew && locked.membership) {
    throw new Refusal(
      'already_member',
      `That person is already a member of ${input.tenantId} (${locked.membership.role}).`,
    );
  }
  return writeRole(tx, input, locked);
}

/** Changes a member's role (audited; the same role again changes and records nothing). */
export async function changeRole(db: Database, input: Grant) {
  return db.transaction(async (tx) => {
    const locked = await lockMembership(tx, input.tenantId, input.userId);
    if (!locked.membership) throw notMember(input.tenantId);
    if (locked.membership.role === input.role)
      return { userId: input.userId, tenantId: input.tenantId, role: input.role, previousRole: input.role };
    return writeRole(tx, input, locked);
  });
}

/**
 * Removes a person from a tenant (audited). Their access here ends on their next request (roles are
 * re-read on each); their sessions stay, since they may serve other tenants this one cannot see.
 */
export async function removeMembership(db: Database, input: { tenantId: string; userId: string; actor: MemberActor }) {
  return db.transaction(async (tx) => {
    const locked = await lockMembership(tx, input.tenantId, input.userId);
    const { membership } = locked;
    if (!membership) throw notMember(input.tenantId);
    refuseLastAdmin(locked, input.tenantId, false);
    await tx
      .delete(memberships)
      .where(and(eq(memberships.tenantId, input.tenantId), eq(memberships.userId, input.userId)));
    await recordStateChange(tx, {
      tenantId: input.tenantId,
      type: 'membership.removed',
      actor: input.actor,
      reasonCode: membership.role,
      data: { user: input.userId },
      outbox: false,
    });
    await endGrantsOfGranter(tx, {
      tenantId: input.tenantId,
      userId: input.userId,
      reason: 'granter_removed',
      by: input.actor,
    });
    await withdrawApprovals(tx, { tenantId: input.tenantId, userId: input.userId, role: null, by: input.actor });
    return { userId: input.userId, role: membership.role };
  });
}

/**
 * The API's answer to a refused membership change: someone who is not a member of this tenant
 * (unknown, or another tenant's) is the same 404; a broken rule is a 409 with its code.
 */
export async function asMemberApi<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Refusal && error.key === 'not_member') throw notFound('member');
    throw error;
  }
}
