import { findAction } from '@/lib/actions/registry';
import type { ViewerRights } from '@/lib/decisions/viewer-rights';
import { amountOf, moneyOf, outsideGrants } from '@/lib/grants/terms';
import type { Proposal } from '@/lib/records';

/**
 * What a standing grant made from this person's approval would cover (docs/grants.md), for the
 * approve confirmation's "Also approve proposals like this for a while".
 */
export type GrantOffer = {
  action: string;
  agentName: string;
  rule: string;
  /** The resource a grant may be narrowed to (`sku:filter-blue`); null when the proposal names none. */
  resourceKey: string | null;
  /** For an action that moves money: the proposal's currency, the one a total cap is in. */
  currency: string | null;
};

/**
 * The offer, only where the server could make the grant (lib/grants/terms.ts): an agent's proposal
 * still waiting, routed to one approver without a passkey (nor one the tenant requires), that this
 * person may approve. Undefined elsewhere: no section is shown that could only be refused.
 */
type Source = Pick<
  Proposal,
  'status' | 'action' | 'agentKeyId' | 'agentName' | 'routing' | 'initiatedByUserId' | 'resourceKey' | 'payload'
>;

export function grantOfferFor(
  proposal: Source,
  rights: Pick<ViewerRights, 'canApprove'>,
  passkeyRequired: boolean,
): GrantOffer | undefined {
  if (!rights.canApprove || proposal.status !== 'pending_approval' || !proposal.agentKeyId) return undefined;
  if (outsideGrants(proposal, passkeyRequired)) return undefined;
  const action = findAction(proposal.action);
  const money = action ? moneyOf(action) : undefined;
  const currency = (money && amountOf(money, proposal.payload.args)?.currency) ?? null;
  return {
    action: proposal.action,
    agentName: proposal.agentName,
    rule: proposal.routing.rule,
    resourceKey: proposal.resourceKey,
    currency,
  };
}
