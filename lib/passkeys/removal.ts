import { and, count, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { memberships, type Passkey, passkeys, tenants } from '@/db/schema';
import { recordAccountEvent } from '@/lib/auth/account-events';
import { notFound, Refusal } from '@/lib/errors/refusal';
import { listPasskeys, type PasskeyView, passkeyView } from './registration';

/** Who removes a passkey: its owner, or an admin of a tenant the owner belongs to (a lost passkey, a reset). */
export type Remover =
  | { kind: 'owner'; userId: string }
  | { kind: 'admin'; userId: string; tenantId: string }
  | { kind: 'operator' };

/** The tenants of this person that require a passkey for every approval. */
async function tenantsRequiring(db: Database, userId: string): Promise<string[]> {
  const rows = await db
    .select({ id: tenants.id })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(and(eq(memberships.userId, userId), eq(tenants.requirePasskeys, true)));
  return rows.map((row) => row.id);
}

/**
 * A passkey is its person's in every tenant, so an admin of one tenant may not remove it where
 * another tenant of that person requires passkeys for every approval: that would change (or end)
 * what the person can do there. The owner or that tenant's admin can; the answer names no tenant,
 * since which others the person is in is theirs to know (docs/passkeys.md "Recovery").
 */
async function refuseBeyondTenant(tx: Database, userId: string, tenantId: string): Promise<void> {
  const elsewhere = (await tenantsRequiring(tx, userId)).filter((id) => id !== tenantId);
  if (elsewhere.length > 0) {
    throw new Refusal(
      'passkey_required_elsewhere',
      'This person also belongs to another team that requires a passkey for every approval, so an admin here ' +
        "cannot remove their passkeys; they can remove it themselves, or that team's admin can. Nothing was " +
        'changed.',
    );
  }
}

/**
 * Removes a passkey, audited `passkey.removed` in every tenant of its owner. An owner may not remove
 * their last passkey while a tenant of theirs requires passkeys (they could not approve there
 * again): an admin resets it (`admin_reset`), as they remove a lost one. An admin reaches only
 * the passkeys of their tenant's members (anything else is the same 404 as an unknown id), and
 * none of a person another tenant requires passkeys of (409 `passkey_required_elsewhere`). The
 * operator's CLI (`kind: 'operator'`) acts as the machine's owner, as its other commands do.
 */
export async function removePasskey(
  db: Database,
  remover: Remover,
  passkeyId: string,
  now = new Date(),
): Promise<PasskeyView> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(passkeys).where(eq(passkeys.id, passkeyId)).for('update');
    if (!row || !(await mayRemove(tx, remover, row))) throw notFound('passkey');
    if (remover.kind === 'admin') await refuseBeyondTenant(tx, row.userId, remover.tenantId);
    if (remover.kind === 'owner') {
      const [owned] = await tx.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, row.userId));
      const requiring = await tenantsRequiring(tx, row.userId);
      if ((owned?.n ?? 0) <= 1 && requiring.length > 0) {
        throw new Refusal(
          'last_passkey',
          `This is your last passkey and ${requiring.join(', ')} requires one for every approval; add ` +
            `another first, or ask an admin to reset it.`,
          { tenants: requiring },
        );
      }
    }
    await tx.delete(passkeys).where(eq(passkeys.id, row.id));
    await recordAccountEvent(tx, row.userId, {
      type: 'passkey.removed',
      actor: remover.kind === 'operator' ? { type: 'system', id: 'cli' } : { type: 'user', id: remover.userId },
      reasonCode: remover.kind === 'owner' ? 'owner' : 'admin_reset',
      data: { user: row.userId, passkey: row.id, credential: row.credentialId, name: row.name },
      occurredAt: now,
    });
    return passkeyView(row);
  });
}

async function mayRemove(tx: Database, remover: Remover, row: Passkey): Promise<boolean> {
  if (remover.kind === 'operator') return true;
  if (remover.kind === 'owner') return row.userId === remover.userId;
  return isMember(tx, remover.tenantId, row.userId);
}

async function isMember(db: Database, tenantId: string, userId: string): Promise<boolean> {
  const [member] = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)));
  return member !== undefined;
}

/**
 * A member's passkeys (names and dates, never key material), for an admin of the tenant; 404 for anyone not a member
 * there.
 */
export async function memberPasskeys(db: Database, tenantId: string, userId: string): Promise<PasskeyView[]> {
  if (!(await isMember(db, tenantId, userId))) throw notFound('member');
  return listPasskeys(db, userId);
}
