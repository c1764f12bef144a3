/**
 * The types of stored records the dashboard's components show. Components take them from here,
 * never from db/ (.dependency-cruiser.cjs); types only, so a client component may import it.
 */

export type { FlagKind, ProposalDrift, ProposalFlag } from '@/db/proposal-flags';
export type { DeliveryStatus, GateResult, Proposal, ProposalStatus, Role } from '@/db/schema';
