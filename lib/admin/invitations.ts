import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from '@/db';
import { invitations, memberships, type Role, tenants, users } from '@/db/schema';
import { recordAccountEvent } from '@/lib/auth/account-events';
import {
  CODE_REFUSED,
  type CodeMail,
  hasPendingCode,
  proveWithPassword,
  sendCodeTo,
  withEmailCode,
} from '@/lib/auth/email-codes';
import { hashPassword } from '@/lib/auth/password';
import { addressSucceeded, admitAddress } from '@/lib/auth/throttle';
import { notFound, Refusal, rateLimited } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { newId } from '@/lib/ids';
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
export type PendingInvitation = {
  id: string;
  email: string;
  name: string;
  role: Role;
  expiresAt: Date;
  createdAt: Date;
};

const pendingColumns = {
  id: invitations.id,
  email: invitations.email,
  name: invitations.name,
  role: invitations.role,
  expiresAt: invitations.expiresAt,
  createdAt: invitations.createdAt,
};

const isPending = (now: Date) => and(isNull(invitations.acceptedAt), gt(invitations.expiresAt, now));

export async function pendingInvitations(
  db: Database,
  tenantId: string,
  now = new Date(),
): Promise<PendingInvitation[]> {
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
export async function createInvitation(
  db: Database,
  input: InvitationInput & { tenantId: string; invitedBy: string },
  now = new Date(),
) {
  const email = input.email.trim().toLowerCase();
  const token = randomBytes(32).toString('base64url');
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ userId: users.id, role: memberships.role })
      .from(users)
      .leftJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, input.tenantId)))
      .where(eq(users.email, email));
    if (existing?.role)
      throw new Refusal(
        'already_member',
        `${email} is already a member (${existing.role}); change their role instead.`,
      );
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
export async function cancelInvitation(
  db: Database,
  input: { tenantId: string; invitationId: string; actorId: string },
  now = new Date(),
) {
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

const GONE: Record<Exclude<InvitationState, 'pending'>, Refusal> = {
  unknown: new Refusal(
    'invitation_not_found',
    'This invitation link is not valid. Check that you copied all of it, or ask an admin for a new one.',
  ),
  used: new Refusal(
    'invitation_used',
    'This invitation was already accepted; its link works only once. Sign in instead.',
  ),
  expired: new Refusal('invitation_expired', 'This invitation expired or was cancelled. Ask an admin for a new one.'),
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

// One answer whether or not the address has an account: the token alone never opens one, and
// nobody chooses a credential for an address they have not proven.
const CODE_REQUIRED = new Refusal(
  'code_required',
  'First prove that this address is yours: send a code to it, then type the code with the password you choose. ' +
    'If you already have an account, you may sign in first and open this link again.',
);
const SIGN_IN_REQUIRED = new Refusal(
  'sign_in_required',
  'A new account cannot be made for this address. If it is yours, sign in first and open this link again.',
);
const HAS_ACCOUNT = new Refusal(
  'sign_in_required',
  'This address has a Countersign account already: sign in with it, then open this link again.',
);

/** The invitation page's "Send code": a code to the invited address (never to anyone the caller names). */
export async function sendInvitationCode(
  db: Database,
  token: string,
  address: string,
  mail: CodeMail,
  now = new Date(),
) {
  await admitted(db, address, now);
  const { invitation } = await pendingRow(db, token, false, now);
  await sendCodeTo(
    db,
    invitation.email,
    mail,
    (tx) =>
      recordStateChange(tx, {
        tenantId: invitation.tenantId,
        type: 'membership.invitation_code_sent',
        actor: { type: 'system', id: 'email-verification' },
        data: { invitation: invitation.id },
        occurredAt: now,
        outbox: false,
      }),
    now,
  );
  await addressSucceeded(db, address);
  return { email: invitation.email };
}

async function admitted(db: Database, address: string, now: Date) {
  const admission = await admitAddress(db, address, now);
  if (!admission.allowed) {
    const seconds = Math.max(1, Math.ceil((admission.retryAt.getTime() - now.getTime()) / 1000));
    throw rateLimited(
      'too_many_attempts',
      `Too many failed attempts from your address; try again in ${seconds} s.`,
      seconds,
    );
  }
}

/**
 * Accepts an invitation. Every attempt counts at the client's address in the sign-in throttle until
 * one succeeds. Three ways in, and none lets the link's holder choose a credential for an address
 * they have not proven:
 * - `{token, code, password}`: the code emailed to the invited address proves it in this same
 *   transaction; then its owner's password is set on a new account, or on the address's unproven
 *   account, which proving takes over (lib/auth/email-codes.ts proveAddress). A proven account's
 *   person signs in instead.
 * - `{token, sso: true}`: a new account with no credential at all; only a single sign-on that
 *   vouches for the address (which proves it) opens it. The caller checks that SSO is configured.
 * - `{token}` signed in as the invited address, with a proven address (or one confined to this tenant).
 */
export async function acceptInvitation(db: Database, input: AcceptInput, acceptor: Acceptor, now = new Date()) {
  await admitted(db, acceptor.address, now);
  const accepted =
    input.code !== undefined
      ? await acceptWithCode(db, input, acceptor, now)
      : acceptor.userId
        ? await acceptSignedIn(db, input, acceptor.userId, now)
        : input.sso
          ? await acceptSso(db, input, now)
          : await refuseUnproven(db, input, now);
  await addressSucceeded(db, acceptor.address);
  return accepted;
}

/** Signed out, without a code or single sign-on: a known link still opens nothing. */
async function refuseUnproven(db: Database, input: AcceptInput, now: Date): Promise<never> {
  await pendingRow(db, input.token, false, now);
  throw CODE_REQUIRED;
}

async function acceptSignedIn(db: Database, input: AcceptInput, userId: string, now: Date) {
  const { invitation } = await pendingRow(db, input.token, false, now);
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  if (user?.email !== invitation.email) {
    throw new Refusal(
      'invitation_for_another_address',
      'This invitation is for another address than the one you are signed in with. Sign out, then open the link again.',
    );
  }
  if (input.password !== undefined || input.sso)
    throw new Refusal('signed_in', 'You are signed in already: accept without choosing a password or single sign-on.');
  return db.transaction(async (tx) => join(tx, input.token, 'existing', now, userId));
}

async function acceptSso(db: Database, input: AcceptInput, now: Date) {
  const { invitation } = await pendingRow(db, input.token, false, now);
  if (await userIdByEmail(db, invitation.email)) throw SIGN_IN_REQUIRED;
  return db.transaction(async (tx) => {
    const { invitation: locked } = await pendingRow(tx, input.token, true, now);
    const userId = await newAccount(tx, locked, { passwordHash: null, emailVerifiedAt: null });
    if (!userId) throw SIGN_IN_REQUIRED;
    return join(tx, input.token, 'sso', now, userId);
  });
}

async function acceptWithCode(db: Database, input: AcceptInput, acceptor: Acceptor, now: Date) {
  const { invitation } = await pendingRow(db, input.token, false, now);
  if (input.password === undefined || input.code === undefined) throw CODE_REQUIRED;
  const { code, password } = input;
  if (!(await hasPendingCode(db, invitation.email, now))) throw CODE_REFUSED.none;
  // Hashing is slow on purpose: only for an address with a pending code, and before any row is locked.
  const passwordHash = await (acceptor.hash ?? hashPassword)(password);
  const invited = async (tx: Database) => (await pendingRow(tx, input.token, true, now)).invitation;
  return withEmailCode(
    db,
    code,
    now,
    async (tx) => (await invited(tx)).email,
    async (tx) => claimAndJoin(tx, input.token, await invited(tx), passwordHash, now),
  );
}

/**
 * The address was proven in this transaction: its owner's password goes on a new account, or on
 * the address's unproven account (proving it takes it over, then the new password ends its
 * sessions). A proven account is its person's already: they sign in instead.
 */
async function claimAndJoin(
  tx: Database,
  token: string,
  invitation: typeof invitations.$inferSelect,
  passwordHash: string,
  now: Date,
) {
  const [existing] = await tx.select().from(users).where(eq(users.email, invitation.email)).for('update');
  if (existing?.emailVerifiedAt) throw HAS_ACCOUNT;
  const userId = existing ? existing.id : await newAccount(tx, invitation, { passwordHash, emailVerifiedAt: now });
  if (!userId) throw HAS_ACCOUNT;
  if (existing) await proveWithPassword(tx, existing.id, 'email_code', passwordHash, now);
  const joined = await join(tx, token, 'password', now, userId);
  if (!existing)
    await recordAccountEvent(tx, userId, {
      type: 'auth.email_verified',
      actor: { type: 'user', id: userId },
      reasonCode: 'email_code',
      data: { user: userId },
      occurredAt: now,
    });
  return joined;
}

async function userIdByEmail(db: Database, email: string) {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  return user?.id;
}

/** A new account for the invited address (its id), or nothing when the address has one. */
async function newAccount(
  tx: Database,
  invitation: typeof invitations.$inferSelect,
  credential: { passwordHash: string | null; emailVerifiedAt: Date | null },
) {
  const values = {
    id: newId('usr'),
    email: invitation.email,
    name: invitation.name,
    createdByTenantId: invitation.tenantId,
    ...credential,
  };
  const [created] = await tx.insert(users).values(values).onConflictDoNothing().returning({ id: users.id });
  return created?.id;
}

/**
 * Grants the invitation's role and marks the link used, in the caller's transaction, re-checking the invitation under
 * lock.
 */
async function join(tx: Database, token: string, signIn: SignInWay, now: Date, userId: string) {
  const { invitation, tenantName } = await pendingRow(tx, token, true, now);
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
}
