import { and, asc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Grant, grants, memberships, type Proposal, tenants } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';
import { roleAtLeast } from '@/lib/auth/roles';
import { cachedRead, cacheTag } from '@/lib/cache/read-cache';
import { amountOf, moneyOf, outsideGrants } from './terms';

/** A proposal at intake, after every gate passed, as far as a grant looks at it. */
export type Coverable = Pick<
  Proposal,
  'tenantId' | 'agentKeyId' | 'resourceKey' | 'routing' | 'flags' | 'initiatedByUserId'
> & {
  action: Pick<ActionModule, 'name' | 'editing'>;
  args: Proposal['payload']['args'];
};

/**
 * The standing grant that approves this proposal, if one does, with its use counted (docs/grants.md).
 * Called inside intake's transaction, under the resource's lock: the grant's row is locked too and
 * its count and total are raised in this transaction, so concurrent intakes on any resources use a
 * grant's cap exactly once each. A grant covers only what its granter could approve alone now: the
 * same action, agent key, rule and policy version (and resource, when it says so), one approver of
 * a role the granter still holds unchanged, no passkey, no flag, within its expiry, count and total.
 * Anything less certain leaves the proposal to a person.
 */
export async function coveringGrant(tx: Database, proposal: Coverable, now: Date): Promise<Grant | undefined> {
  // Any risk flag leaves it to a person.
  if (!proposal.agentKeyId || proposal.flags.length > 0 || outsideGrants(proposal, false)) return undefined;
  const money = moneyOf(proposal.action);
  const priced = money ? amountOf(money, proposal.args) : undefined;
  const amount = priced?.amount ?? 0;
  const [row] = await tx
    .select({ grant: grants, role: memberships.role })
    .from(grants)
    .innerJoin(tenants, and(eq(tenants.id, grants.tenantId), eq(tenants.requirePasskeys, false)))
    // The granter still a member, in the very role they granted with: a changed role ends the grant.
    .innerJoin(
      memberships,
      and(
        eq(memberships.tenantId, grants.tenantId),
        eq(memberships.userId, grants.grantedBy),
        eq(memberships.role, grants.granterRole),
      ),
    )
    .where(
      and(
        eq(grants.tenantId, proposal.tenantId),
        eq(grants.action, proposal.action.name),
        eq(grants.agentKeyId, proposal.agentKeyId),
        isNull(grants.endedAt),
        gt(grants.expiresAt, now),
        eq(grants.rule, proposal.routing.rule),
        eq(grants.policyVersion, proposal.routing.policyVersion),
        or(
          isNull(grants.resourceKey),
          proposal.resourceKey ? eq(grants.resourceKey, proposal.resourceKey) : sql`false`,
        ),
        lt(grants.usedCount, grants.maxCount),
        // Money: the same currency, and room left under the total when the grant has one.
        priced ? or(isNull(grants.currency), eq(grants.currency, priced.currency)) : isNull(grants.currency),
        or(isNull(grants.maxTotalMinor), sql`${grants.usedTotalMinor} + ${amount} <= ${grants.maxTotalMinor}`),
      ),
    )
    .orderBy(asc(grants.createdAt), asc(grants.id))
    .limit(1)
    // Re-checked by PostgreSQL after any wait: a grant another intake just used up is not returned.
    .for('update', { of: grants });
  if (!row || !roleAtLeast(row.role, proposal.routing.role)) return undefined;
  const [used] = await tx
    .update(grants)
    .set({ usedCount: sql`${grants.usedCount} + 1`, usedTotalMinor: sql`${grants.usedTotalMinor} + ${amount}` })
    .where(eq(grants.id, row.grant.id))
    .returning();
  return used;
}

/**
 * Whether the tenant may have a grant that covers anything: read before intake's transaction,
 * kept by the read cache until a grant is made (lib/grants/create.ts announces it), so intake in a
 * tenant without grants spends no statement on them. `true` only means "look under the lock".
 */
export function tenantMayHaveGrants(db: Database, tenantId: string): Promise<boolean> {
  const tag = cacheTag.grants(tenantId);
  return cachedRead(
    db,
    tag,
    async () =>
      (
        await db
          .select({ id: grants.id })
          .from(grants)
          .where(and(eq(grants.tenantId, tenantId), isNull(grants.endedAt)))
          .limit(1)
      ).length > 0,
    () => [tag],
  );
}
