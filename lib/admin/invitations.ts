import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from '@/db';
import { invitations, memberships, tenants, users, type Role } from '@/db/schema';
import { hashPassword } from '@/lib/auth/password';
import { addressSucceeded, admitAddress } from '@/lib/auth/throttle';
import { recordStateChange } from '@/lib/events/record';
import { DomainError, notFound, rateLimited } from '@/lib/errors/domain-error';
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
 * this once. A member of the tenant is refused (`already_member`); anyone else is invited alike,
 * and nothing recorded says whether the address has an account elsewhere. A new invitation
 * replaces the same email's pending one (its link stops working).
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
      data: { invitation: invitation!.id, role: input.role, replaced: replaced.length },
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

/**
 * What the invitation page shows for a link's token: its state and, when known, whom it is for —
 * never whether the address has an account (the link's holder may be another tenant's admin).
 */
export type InvitationView =
  | { state: 'unknown' }
  | { state: 'used' | 'expired'; tenantName: string }
  | { state: 'pending'; tenantName: string; email: string; name: string; role: Role; expiresAt: Date };

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

export async function invitationByToken(db: Database, token: string, now = new Date()): Promise<InvitationView> {
  const row = await invitationRow(db, token, false);
  if (!row) return { state: 'unknown' };
  const state = stateOf(row.invitation, now);
  if (state !== 'pending') return { state, tenantName: row.tenantName };
  const { email, name, role, expiresAt } = row.invitation;
  return { state, tenantName: row.tenantName, email, name, role, expiresAt };
}

const GONE: Record<Exclude<InvitationState, 'pending'>, DomainError> = {
  unknown: new DomainError('not_found', 'invitation_not_found', 'This invitation link is not valid. Check that you copied all of it, or ask an admin for a new one.'),
  used: new DomainError('gone', 'invitation_used', 'This invitation was already accepted; its link works only once. Sign in instead.'),
  expired: new DomainError('gone', 'invitation_expired', 'This invitation expired or was cancelled. Ask an admin for a new one.'),
};

/** The invitation of a token, pending now, or the error that says why not. */
async function pendingRow(db: Database, token: string, lock: boolean, now: Date) {
  const row = await invitationRow(db, token, lock);
  const state = row ? stateOf(row.invitation, now) : 'unknown';
  if (!row || state !== 'pending') throw GONE[state as Exclude<InvitationState, 'pending'>];
  return row;
}

/** How the person signs in once they have accepted. */
export type SignInWay = 'password' | 'sso' | 'existing';

/** Who is accepting: the session's person (if any) and the address the request came from. */
export type Acceptor = { userId?: string; address: string; hash?: (password: string) => Promise<string> };

// One answer whether or not the address has an account: the token alone never opens one.
const PASSWORD_REQUIRED = new DomainError('invalid', 'password_required', 'Choose a password of at least 12 characters for a new account. If you already have an account, sign in first and open this link again.');
const SIGN_IN_REQUIRED = new DomainError('conflict', 'sign_in_required', 'A new account cannot be made for this address. If it is yours, sign in first and open this link again.');

/**
 * Accepts an invitation. The token is looked up first (every attempt counts at the client's address
 * in the sign-in throttle until one succeeds), and a password is hashed only for a pending
 * invitation of a new account. Into an existing account only when signed in as it: the token alone
 * never suffices, and an account confined to another tenant (made by a link, address unproven) is
 * refused. A new account is confined to this tenant until its person proves the address. One
 * transaction grants the role and marks the link used. The caller checks that SSO is configured.
 */
export async function acceptInvitation(db: Database, input: AcceptInput, acceptor: Acceptor, now = new Date()) {
  const admission = await admitAddress(db, acceptor.address, now);
  if (!admission.allowed) {
    const seconds = Math.max(1, Math.ceil((admission.retryAt.getTime() - now.getTime()) / 1000));
    throw rateLimited('too_many_attempts', `Too many failed attempts from your address; try again in ${seconds} s.`, seconds);
  }
  const accepted = acceptor.userId ? await acceptSignedIn(db, input, acceptor.userId, now) : await acceptNew(db, input, acceptor, now);
  await addressSucceeded(db, acceptor.address);
  return accepted;
}

async function acceptSignedIn(db: Database, input: AcceptInput, userId: string, now: Date) {
  const { invitation } = await pendingRow(db, input.token, false, now);
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  if (user?.email !== invitation.email) {
    throw new DomainError('forbidden', 'invitation_for_another_address', 'This invitation is for another address than the one you are signed in with. Sign out, then open the link again.');
  }
  if (input.password !== undefined || input.sso) throw new DomainError('invalid', 'signed_in', 'You are signed in already: accept without choosing a password or single sign-on.');
  return join(db, input.token, 'existing', now, { userId });
}

async function acceptNew(db: Database, input: AcceptInput, acceptor: Acceptor, now: Date) {
  const { invitation } = await pendingRow(db, input.token, false, now);
  if (input.password === undefined && !input.sso) throw PASSWORD_REQUIRED;
  if (await userIdByEmail(db, invitation.email)) throw SIGN_IN_REQUIRED;
  // Hashing is slow on purpose: only now, and before any row is locked.
  const passwordHash = input.password === undefined ? null : await (acceptor.hash ?? hashPassword)(input.password);
  return join(db, input.token, input.sso ? 'sso' : 'password', now, { passwordHash });
}

async function userIdByEmail(db: Database, email: string) {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  return user?.id;
}

/**
 * Grants the invitation's role (to the existing account, or to a new one confined to this tenant)
 * and marks the link used, in one transaction, re-checking the invitation under lock.
 */
async function join(db: Database, token: string, signIn: SignInWay, now: Date, who: { userId: string } | { passwordHash: string | null }) {
  return db.transaction(async (tx) => {
    const { invitation, tenantName } = await pendingRow(tx, token, true, now);
    const userId = 'userId' in who ? who.userId : newId('usr');
    if (!('userId' in who)) {
      const values = { id: userId, email: invitation.email, name: invitation.name, passwordHash: who.passwordHash, createdByTenantId: invitation.tenantId };
      const created = await tx.insert(users).values(values).onConflictDoNothing().returning({ id: users.id });
      if (created.length === 0) throw SIGN_IN_REQUIRED;
    }
    await grantMembership(tx, {
      tenantId: invitation.tenantId,
      userId,
      role: invitation.role,
      actor: { type: 'user', id: userId },
      data: { invitation: invitation.id },
      onlyNew: true,
    });
    await tx.update(invitations).set({ acceptedAt: now }).where(eq(invitations.id, invitation.id));
    return { userId, email: invitation.email, tenantId: invitation.tenantId, tenantName, role: invitation.role, signIn };
  });
}
