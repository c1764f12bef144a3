import { and, eq, max } from 'drizzle-orm';
import type { Database } from '@/db';
import { decisions, type Grant, grants, memberships, policies, proposals, tenants } from '@/db/schema';
import { roleAtLeast } from '@/lib/auth/roles';
import { changeTransaction } from '@/lib/cache/read-cache';
import { tenantAction } from '@/lib/definitions/catalog';
import type { ErrorKey } from '@/lib/errors/codes';
import { notFound, Refusal } from '@/lib/errors/refusal';
import { aboutProposal, recordStateChange } from '@/lib/events/record';
import { newId } from '@/lib/ids';
import type { GrantRequest } from './requests';
import { amountOf, moneyOf, outsideGrants } from './terms';

const conflict = (key: ErrorKey, message: string) => new Refusal(key, message);

/**
 * A standing grant made from a proposal the person approved (docs/grants.md): further proposals of
 * the same action, agent key and rule (and, when asked, resource) are approved in their name for
 * `minutes`, at most `maxCount` of them and, for money, `maxTotalMinor` in all. Refused unless the
 * source proposal is one a grant could cover: one approver of a role the person holds, no passkey,
 * no flag, the policy it was routed by still current. Audited `grant.created` on the source proposal.
 */
export async function createGrant(
  db: Database,
  input: { tenantId: string; userId: string; request: GrantRequest },
  now = new Date(),
): Promise<Grant> {
  const { tenantId, userId, request } = input;
  return changeTransaction(db, async (tx, announce) => {
    const [found] = await tx
      .select({ proposal: proposals, role: memberships.role, requirePasskeys: tenants.requirePasskeys })
      .from(proposals)
      .innerJoin(tenants, eq(tenants.id, proposals.tenantId))
      .innerJoin(memberships, and(eq(memberships.tenantId, proposals.tenantId), eq(memberships.userId, userId)))
      .where(and(eq(proposals.id, request.proposalId), eq(proposals.tenantId, tenantId)))
      // The source row locked: two grants from one proposal queue, and the second meets the first.
      .for('update', { of: proposals })
      .limit(1);
    if (!found) throw notFound();
    const { proposal, role } = found;
    if (!roleAtLeast(role, proposal.routing.role)) {
      throw new Refusal(
        'forbidden_role',
        `Granting needs the ${proposal.routing.role} role this proposal asked for; you are ${role}.`,
      );
    }
    const [approval] = await tx
      .select({ id: decisions.id })
      .from(decisions)
      .where(
        and(eq(decisions.proposalId, proposal.id), eq(decisions.userId, userId), eq(decisions.decision, 'approve')),
      )
      .limit(1);
    if (!approval)
      throw conflict(
        'not_your_approval',
        'A grant is made from a proposal you approved yourself; you have not approved this one.',
      );
    if (proposal.status === 'rejected')
      throw conflict('not_approved', 'This proposal was rejected after your approval; nothing can be granted from it.');
    const outside = outsideGrants(proposal, found.requirePasskeys);
    if (outside) throw conflict('not_grantable', `No grant can be made from this proposal: ${outside}.`);
    if (!proposal.agentKeyId)
      throw conflict('not_grantable', 'No grant can be made from this proposal: no agent key proposed it.');

    const action = await tenantAction(tx, tenantId, proposal.action);
    if (!action)
      throw conflict(
        'not_grantable',
        `No grant can be made from this proposal: the action ${proposal.action} is no longer served.`,
      );
    // The newest published version (none: the action's defaults, version 0). lib/policy publishes and ends grants, so
    // it is read here, not imported.
    const [newest] = await tx
      .select({ version: max(policies.version) })
      .from(policies)
      .where(and(eq(policies.tenantId, tenantId), eq(policies.action, proposal.action)));
    const current = newest?.version ?? 0;
    if (current !== proposal.routing.policyVersion) {
      throw conflict(
        'policy_changed',
        `The ${proposal.action} policy changed since this proposal was routed ` +
          `(v${proposal.routing.policyVersion}, now v${current}); approve a proposal under the current one to ` +
          `grant.`,
      );
    }
    const money = moneyOf(action);
    const sourceAmount = money ? amountOf(money, proposal.payload.args) : undefined;
    if (request.maxTotalMinor !== undefined && !sourceAmount) {
      throw new Refusal('invalid_grant', `${proposal.action} moves no money: send no maxTotalMinor.`, {
        issues: [{ path: 'maxTotalMinor', message: 'this action moves no money' }],
      });
    }
    const [taken] = await tx.select({ id: grants.id }).from(grants).where(eq(grants.proposalId, proposal.id)).limit(1);
    if (taken) throw conflict('already_granted', `A grant was already made from this proposal (${taken.id}).`);

    const [grant] = await tx
      .insert(grants)
      .values({
        id: newId('g'),
        tenantId,
        proposalId: proposal.id,
        grantedBy: userId,
        granterRole: role,
        action: proposal.action,
        agentKeyId: proposal.agentKeyId,
        agentName: proposal.agentName,
        resourceKey: request.sameResource ? proposal.resourceKey : null,
        rule: proposal.routing.rule,
        policyVersion: proposal.routing.policyVersion,
        moneyField: sourceAmount ? money!.field : null,
        currency: sourceAmount?.currency ?? null,
        maxCount: request.maxCount,
        maxTotalMinor: request.maxTotalMinor ?? null,
        reason: request.reason,
        createdAt: now,
        expiresAt: new Date(now.getTime() + request.minutes * 60_000),
      })
      .returning();
    if (!grant) throw new Error('grant insert returned nothing');
    // Every process's intake looks for grants in this tenant from this commit on.
    await announce({ kind: 'grants', tenantId });
    await recordStateChange(tx, {
      ...aboutProposal(proposal),
      type: 'grant.created',
      actor: { type: 'user', id: userId },
      reasonCode: grant.id,
      data: {
        grant: grant.id,
        action: grant.action,
        agentKey: grant.agentKeyId,
        agent: grant.agentName,
        resource: grant.resourceKey,
        rule: grant.rule,
        policyVersion: grant.policyVersion,
        role: grant.granterRole,
        maxCount: grant.maxCount,
        maxTotalMinor: grant.maxTotalMinor,
        currency: grant.currency,
        expiresAt: grant.expiresAt.toISOString(),
        reason: grant.reason,
      },
      occurredAt: now,
      outbox: false,
    });
    return grant;
  });
}
