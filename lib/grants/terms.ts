import type { Grant, Proposal } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';

/**
 * What a grant is now, from its row and the clock: only `active` covers anything. Expiry and a cap
 * reached need no write; the other ends are recorded when they happen (lib/grants/end.ts).
 */
export type GrantState = 'active' | 'expired' | 'used_up' | NonNullable<Grant['endReason']>;

export function grantState(
  grant: Pick<Grant, 'endReason' | 'expiresAt' | 'usedCount' | 'maxCount'>,
  now: Date,
): GrantState {
  if (grant.endReason) return grant.endReason;
  if (grant.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (grant.usedCount >= grant.maxCount) return 'used_up';
  return 'active';
}

/**
 * The argument holding an action's money in minor units, and the one naming its currency; none for an action that moves
 * no money.
 */
export function moneyOf(action: Pick<ActionModule, 'editing'>): { field: string; currencyField: string } | undefined {
  return action.editing?.money?.[0];
}

/**
 * A proposal's amount and currency under the action's money fields (an integer amount, a string currency), or
 * undefined.
 */
export function amountOf(
  money: { field: string; currencyField: string },
  args: Proposal['payload']['args'],
): { amount: number; currency: string } | undefined {
  const amount = args[money.field];
  const currency = args[money.currencyField];
  return typeof amount === 'number' && Number.isSafeInteger(amount) && typeof currency === 'string'
    ? { amount, currency }
    : undefined;
}

/**
 * Why a proposal's routing keeps a grant from it or from covering it: only one approver of one
 * role, no passkey signature, an agent's own proposal. Undefined when it doesn't. (Flags are held
 * against covered proposals only: the person who grants looked at the flags of their own.)
 */
export function outsideGrants(
  proposal: Pick<Proposal, 'routing' | 'initiatedByUserId'>,
  tenantRequiresPasskeys: boolean,
): string | undefined {
  const { routing } = proposal;
  if (routing.outcome !== 'needs_approval') return 'its routing did not ask a person';
  if (routing.approvals !== 1) return `its rule asks for ${routing.approvals} approvers; a grant stands in for one`;
  if (routing.passkey || tenantRequiresPasskeys) return 'its approval must be signed with a passkey';
  if (proposal.initiatedByUserId) return 'it is an operator’s revision, which a person must approve';
  return undefined;
}
