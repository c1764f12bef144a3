import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from '@/db';
import { invitations, memberships, tenants, users, type Role } from '@/db/schema';
import { hashPassword } from '@/lib/auth/password';
import { recordStateChange } from '@/lib/events/record';
import { ApiError, notFound } from '@/lib/http/errors';
import { newId } from '@/lib/ids';
import { MembershipError } from './errors';
import { grantMembership } from './members';
import type { AcceptInput, InvitationInput } from './requests';

/**
 * Invitations (Settings → Members): an admin invites an email with a role and gets a one-time
 * link, `/invite/<token>`. The token is 32 random bytes; only its SHA-256 is stored, so the
 * database cannot hand out working links. A link works once, for 72 hours, until cancelled.
 */

export const INVITATION_HOURS = 72;

/** A token as links carry it: 32 bytes in base64url (43 characters). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const invitationTokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A pending invitation as the admin's list shows it (never its token or hash). */
export type PendingInvitation = { id: string; email: string; name: string; role: Role; expiresAt: Date; createdAt: Date };

const pendingColumns = { id: invitations.id, email: invitations.email, name: invitations.name, role: invitations.role, expiresAt: invitations.expiresAt, createdAt: invitations.createdAt };

const isPending = (now: Date) => and(isNull(invitations.acceptedAt), gt(invitations.expiresAt, now));

export async function pendingInvitations(db: Database, tenantId: string, now = new Date()): Promise<PendingInvitation[]> {
  return db
    .select(pendingColumns)
    .from(invitations)
    .where(and(eq(invitations.tenantId, tenantId), isPending(now)))
    .orderBy(asc(invitations.expiresAt));
}

/**
 * Invites `email` to the tenant (audited `membership.invited`) and returns the link's token, shown
 * this once. A member of the tenant is refused (`already_member`); a person with an account in
 * another tenant is invited like anyone, and accepting gives them the role without touching their
 * password. A new invitation replaces the same email's pending one (its link stops working).
 */
export async function createInvitation(db: Database, input: InvitationInput & { tenantId: string; invitedBy: string }, now = new Date()) {
  const email = input.email.trim().toLowerCase();
  const token = randomBytes(32).toString('base64url');
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ userId: users.id, role: memberships.role })
      .from(users)
      .leftJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, input.tenantId)))
      .where(eq(users.email, email));
    if (existing?.role) throw new MembershipError('already_member', `${email} is already a member (${existing.role}); change their role instead.`);
    const replaced = await tx
      .update(invitations)
      .set({ expiresAt: now })
      .where(and(eq(invitations.tenantId, input.tenantId), eq(invitations.email, email), isPending(now)))
      .returning({ id: invitations.id });
    const [invitation] = await tx
      .insert(invitations)
      .values({
        id: newId('inv'),
        tenantId: input.tenantId,
        email,
        name: input.name,
        role: input.role,
        tokenHash: invitationTokenHash(token),
        expiresAt: new Date(now.getTime() + INVITATION_HOURS * 3_600_000),
        createdByUserId: input.invitedBy,
        createdAt: now,
      })
      .returning(pendingColumns);
    await recordStateChange(tx, {
      tenantId: input.tenantId,
      type: 'membership.invited',
      actor: { type: 'user', id: input.invitedBy },
      reasonCode: input.role,
      data: { invitation: invitation!.id, role: input.role, existingUser: existing?.userId ?? null, replaced: replaced.length },
      occurredAt: now,
      outbox: false,
    });
    return { token, invitation: invitation! };
  });
}

/** Cancels a pending invitation of this tenant (audited); its link stops working. Anything else is a 404. */
export async function cancelInvitation(db: Database, input: { tenantId: string; invitationId: string; actorId: string }, now = new Date()) {
  return db.transaction(async (tx) => {
    const [cancelled] = await tx
      .update(invitations)
      .set({ expiresAt: now })
      .where(and(eq(invitations.id, input.invitationId), eq(invitations.tenantId, input.tenantId), isPending(now)))
      .returning(pendingColumns);
    if (!cancelled) throw notFound('pending invitation');
    await recordStateChange(tx, {
      tenantId: input.tenantId,
      type: 'membership.invitation_cancelled',
      actor: { type: 'user', id: input.actorId },
      reasonCode: cancelled.role,
      data: { invitation: cancelled.id },
      occurredAt: now,
      outbox: false,
    });
    return cancelled;
  });
}

export type InvitationState = 'pending' | 'used' | 'expired' | 'unknown';

/** What the invitation page shows for a link's token: its state and, when known, whom it is for. */
export type InvitationView =
  | { state: 'unknown' }
  | { state: 'used' | 'expired'; tenantName: string }
  | { state: 'pending'; tenantName: string; email: string; name: string; role: Role; expiresAt: Date; hasAccount: boolean };

async function invitationRow(db: Database, token: string, lock: boolean) {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const query = db
    .select({ invitation: invitations, tenantName: tenants.name })
    .from(invitations)
    .innerJoin(tenants, eq(tenants.id, invitations.tenantId))
    .where(eq(invitations.tokenHash, invitationTokenHash(token)));
  const [row] = await (lock ? query.for('update', { of: invitations }) : query);
  return row;
}

function stateOf(invitation: { acceptedAt: Date | null; expiresAt: Date }, now: Date): InvitationState {
  if (invitation.acceptedAt) return 'used';
  return invitation.expiresAt.getTime() <= now.getTime() ? 'expired' : 'pending';
}

async function userByEmail(db: Database, email: string) {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  return user;
}

export async function invitationByToken(db: Database, token: string, now = new Date()): Promise<InvitationView> {
  const row = await invitationRow(db, token, false);
  if (!row) return { state: 'unknown' };
  const state = stateOf(row.invitation, now);
  if (state !== 'pending') return { state, tenantName: row.tenantName };
  const { email, name, role, expiresAt } = row.invitation;
  return { state, tenantName: row.tenantName, email, name, role, expiresAt, hasAccount: Boolean(await userByEmail(db, email)) };
}

const GONE: Record<Exclude<InvitationState, 'pending'>, ApiError> = {
  unknown: new ApiError(404, 'not_found', 'invitation_not_found', 'This invitation link is not valid. Check that you copied all of it, or ask an admin for a new one.'),
  used: new ApiError(410, 'business_rule', 'invitation_used', 'This invitation was already accepted; its link works only once. Sign in instead.'),
  expired: new ApiError(410, 'business_rule', 'invitation_expired', 'This invitation expired or was cancelled. Ask an admin for a new one.'),
};

/** How the person signs in once they have accepted. */
export type SignInWay = 'password' | 'sso' | 'existing';

/**
 * Accepts an invitation, in one transaction: checks the token (unknown, used or expired: nothing
 * changes), creates the account (with the chosen password, or none for single sign-on) or uses the
 * existing one (whose password is never set here), grants the role, and marks the invitation
 * used so the link is dead afterwards. The caller checks that single sign-on is configured.
 */
export async function acceptInvitation(db: Database, input: AcceptInput, now = new Date()) {
  // Hashing is slow on purpose: do it before any row is locked.
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const row = await invitationRow(tx, input.token, true);
    const state = row ? stateOf(row.invitation, now) : 'unknown';
    if (!row || state !== 'pending') throw GONE[state as Exclude<InvitationState, 'pending'>];
    const { invitation } = row;
    const existing = await userByEmail(tx, invitation.email);
    if (existing && (passwordHash || input.sso)) {
      throw new ApiError(409, 'business_rule', 'account_exists', 'You have an account already: accept without choosing a password, then sign in as you do today.');
    }
    if (!existing && !passwordHash && !input.sso) {
      throw new ApiError(422, 'schema', 'password_required', `Choose a password of at least 12 characters for your new account.`);
    }
    const userId = existing?.id ?? newId('usr');
    if (!existing) await tx.insert(users).values({ id: userId, email: invitation.email, name: invitation.name, passwordHash });
    await grantMembership(tx, {
      tenantId: invitation.tenantId,
      userId,
      role: invitation.role,
      actor: { type: 'user', id: userId },
      data: { invitation: invitation.id },
      onlyNew: true,
    });
    await tx.update(invitations).set({ acceptedAt: now }).where(eq(invitations.id, invitation.id));
    const signIn: SignInWay = existing ? 'existing' : input.sso ? 'sso' : 'password';
    return { userId, email: invitation.email, tenantId: invitation.tenantId, tenantName: row.tenantName, role: invitation.role, signIn };
  });
}
