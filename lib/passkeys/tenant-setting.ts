import { and, eq, exists, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { memberships, passkeys, tenants } from '@/db/schema';
import type { AuditInput } from '@/lib/events/append';
import { recordStateChange } from '@/lib/events/record';
import { endGrantsOfTenant } from '@/lib/grants/end';

/**
 * Turns the tenant's "every approval needs a passkey" on or off, audited `tenant.settings_changed`;
 * turning it on ends the tenant's standing grants.
 * Undefined when there is no such tenant; `changed` is false when it already was so.
 */
export async function setPasskeysRequired(
  db: Database,
  tenantId: string,
  required: boolean,
  actor: AuditInput['actor'],
  now = new Date(),
): Promise<{ changed: boolean } | undefined> {
  return db.transaction(async (tx) => {
    const [tenant] = await tx
      .select({ required: tenants.requirePasskeys })
      .from(tenants)
      .where(eq(tenants.id, tenantId))
      .for('update');
    if (!tenant) return undefined;
    if (tenant.required === required) return { changed: false };
    await tx.update(tenants).set({ requirePasskeys: required }).where(eq(tenants.id, tenantId));
    await recordStateChange(tx, {
      tenantId,
      type: 'tenant.settings_changed',
      actor,
      data: { requirePasskeys: required },
      occurredAt: now,
      outbox: false,
    });
    // Every approval must now be signed: no grant may approve in anyone's name (docs/grants.md).
    if (required && actor.type !== 'agent')
      await endGrantsOfTenant(tx, { tenantId, by: { type: actor.type, id: actor.id } }, now);
    return { changed: true };
  });
}

/** What an admin sees beside the setting: how many members could sign now, and whether they themselves could. */
export type TenantPasskeys = { required: boolean; members: number; membersWithPasskey: number; youHaveOne: boolean };

/** The tenant's setting and who of its members has a passkey; undefined when there is no such tenant. */
export async function tenantPasskeys(
  db: Database,
  tenantId: string,
  userId: string,
): Promise<TenantPasskeys | undefined> {
  const hasPasskey = exists(db.select({ one: sql`1` }).from(passkeys).where(eq(passkeys.userId, memberships.userId)));
  const [row] = await db
    .select({
      required: tenants.requirePasskeys,
      members: sql<number>`count(${memberships.userId})::int`,
      membersWithPasskey: sql<number>`(count(${memberships.userId}) filter (where ${hasPasskey}))::int`,
      youHaveOne: sql<boolean>`coalesce(bool_or(${and(eq(memberships.userId, userId), hasPasskey)}), false)`,
    })
    .from(tenants)
    .leftJoin(memberships, eq(memberships.tenantId, tenants.id))
    .where(eq(tenants.id, tenantId))
    .groupBy(tenants.id);
  return row;
}
