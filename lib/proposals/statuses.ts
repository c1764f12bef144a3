import { type ProposalStatus, proposalStatusEnum } from '@/db/schema';

/** Every status a proposal can have (the database's enum is their one definition). */
export const PROPOSAL_STATUSES: readonly ProposalStatus[] = proposalStatusEnum.enumValues;

/** Statuses a proposal still leaves: waiting, approved, running, and `outcome_unknown` (reconciliation settles it). */
const MOVING: ReadonlySet<ProposalStatus> = new Set(['pending_approval', 'approved', 'executing', 'outcome_unknown']);

/**
 * Statuses a proposal never leaves. The typed and the Python client keep their own copies (they
 * depend on nothing of the server); test/client-definitions.test.ts holds them to these.
 */
export const FINAL_STATUSES: readonly ProposalStatus[] = PROPOSAL_STATUSES.filter((status) => !MOVING.has(status));
