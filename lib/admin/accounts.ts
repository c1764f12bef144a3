import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Role, tenants, users } from '@/db/schema';
import { AGENT_NAME } from '@/lib/agents/name';
import { recordAccountEvent } from '@/lib/auth/account-events';
import { forgetKnownAddresses } from '@/lib/auth/known-addresses';
import { hashPassword } from '@/lib/auth/password';
import { MAX_PASSWORD, MIN_PASSWORD } from '@/lib/auth/password-rules';
import { endAllSessions } from '@/lib/auth/sessions';
import { changeTransaction } from '@/lib/cache/read-cache';
import { tenantActions } from '@/lib/definitions/catalog';
import { Refusal } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { isTenantId, newId } from '@/lib/ids';
import { insertAgentKey, keyRefusal, revokeKey } from './agent-keys';
import { grantMembership, removeMembership } from './members';

/** Account administration shared by the CLI, the demo seed and the settings pages. */

const SYSTEM = { type: 'system' as const, id: 'cli' };

export async function createTenant(db: Database, input: { id: string; name: string }) {
  if (!isTenantId(input.id)) {
    throw new Refusal(
      'invalid_tenant_id',
      'A tenant id is 2–40 characters of a–z, 0–9 and "-", starting with a letter or digit.',
    );
  }
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(tenants).values(input).onConflictDoNothing().returning();
    if (!row) throw new Refusal('tenant_exists', `Tenant "${input.id}" already exists.`);
    await recordStateChange(tx, {
      tenantId: row.id,
      type: 'tenant.created',
      actor: SYSTEM,
      data: { tenant: row.id },
      outbox: false,
    });
    return row;
  });
}

function checkPassword(password: string) {
  if (password.length < MIN_PASSWORD)
    throw new Refusal('invalid_password', `A password needs at least ${MIN_PASSWORD} characters.`);
  if (password.length > MAX_PASSWORD)
    throw new Refusal('invalid_password', `A password is at most ${MAX_PASSWORD} characters.`);
}

export async function createUser(db: Database, input: { email: string; name: string; password?: string }) {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    throw new Refusal('invalid_email', `"${input.email}" is not an email address.`);
  if (input.password !== undefined) checkPassword(input.password);
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const [row] = await db
    .insert(users)
    .values({ id: newId('usr'), email, name: input.name, passwordHash })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new Refusal('user_exists', `A user with email ${email} already exists.`);
  return row;
}

/**
 * A new password ends every session the person had (a stolen cookie dies with the old password)
 * and forgets where the old one was used (the sign-in throttle's known addresses).
 */
export async function setPassword(db: Database, userId: string, password: string) {
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  await db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash }).where(eq(users.id, userId));
    await recordAccountEvent(tx, userId, { type: 'auth.password_changed', actor: SYSTEM, data: { user: userId } });
    await endAllSessions(tx, userId, 'password_changed', SYSTEM);
    await forgetKnownAddresses(tx, userId);
  });
}

async function userByEmail(db: Database, email: string) {
  const [user] = await db.select().from(users).where(eq(users.email, email.trim().toLowerCase())).limit(1);
  if (!user) throw new Refusal('not_found', `No user with email ${email}.`);
  return user;
}

export async function changePassword(db: Database, email: string, password: string) {
  const user = await userByEmail(db, email);
  await setPassword(db, user.id, password);
  return user;
}

/**
 * Removes a person from a tenant (their sessions stay: see removeMembership). The last admin of a
 * tenant cannot be removed (nobody could administer it any more).
 */
export async function removeMember(db: Database, input: { tenantId: string; email: string }) {
  const user = await userByEmail(db, input.email);
  return removeMembership(db, { tenantId: input.tenantId, userId: user.id, actor: SYSTEM });
}

/** "Sign out everywhere" from the command line: ends every open session of the person. */
export async function endSessionsOf(db: Database, email: string) {
  const user = await userByEmail(db, email);
  return { userId: user.id, sessionsEnded: await endAllSessions(db, user.id, 'signed_out_everywhere', SYSTEM) };
}

/** Gives a person a role in a tenant, or another role (never demoting the tenant's last admin). */
export async function grantRole(db: Database, input: { tenantId: string; email: string; role: Role }) {
  return db.transaction(async (tx) => {
    const [user] = await tx.select().from(users).where(eq(users.email, input.email.toLowerCase())).limit(1);
    if (!user) throw new Refusal('not_found', `No user with email ${input.email}; create the user first.`);
    const [tenant] = await tx.select().from(tenants).where(eq(tenants.id, input.tenantId)).limit(1);
    if (!tenant) throw new Refusal('not_found', `No tenant "${input.tenantId}".`);
    return grantMembership(tx, { tenantId: input.tenantId, userId: user.id, role: input.role, actor: SYSTEM });
  });
}

export async function createAgentKey(
  db: Database,
  input: { tenantId: string; agentName: string; actions: string[]; grants?: Record<string, string[]> },
) {
  if (!AGENT_NAME.test(input.agentName)) {
    throw new Refusal('invalid_agent_key', 'An agent name is 1–64 characters of letters, digits, ".", "_" and "-".');
  }
  if (input.actions.length === 0)
    throw new Refusal('invalid_agent_key', 'An agent key needs at least one allowed action.');
  const refused = keyRefusal(await tenantActions(db, input.tenantId), {
    actions: input.actions,
    grants: input.grants ?? {},
  });
  if (refused) throw refused;
  return changeTransaction(db, async (tx, announce) => {
    const [tenant] = await tx.select().from(tenants).where(eq(tenants.id, input.tenantId)).limit(1);
    if (!tenant) throw new Refusal('not_found', `No tenant "${input.tenantId}".`);
    const { row, key } = await insertAgentKey(
      tx,
      {
        tenantId: input.tenantId,
        agentName: input.agentName,
        allowedActions: input.actions,
        grants: input.grants ?? {},
        onBehalfOfUserId: null,
      },
      new Date(),
    );
    await announce({ kind: 'agent_key', tenantId: input.tenantId, keyId: row.id });
    await recordStateChange(tx, {
      tenantId: input.tenantId,
      type: 'agent_key.created',
      actor: SYSTEM,
      data: { key: row.id, agent: input.agentName, actions: input.actions.join(',') },
      outbox: false,
    });
    return { id: row.id, key, prefix: row.keyPrefix };
  });
}

/** Revokes a key by id in whichever tenant it is (the CLI, the seed); see revokeKey. */
export async function revokeAgentKey(db: Database, keyId: string) {
  const revoked = await revokeKey(db, undefined, SYSTEM, keyId).catch((error: unknown) => {
    if (error instanceof Refusal) return undefined;
    throw error;
  });
  if (!revoked) throw new Refusal('not_found', `No active agent key with id ${keyId}.`);
  return revoked;
}
