import { type ProposalStatus, proposalStatusEnum } from '@/db/schema';

/** Every status a proposal can have (the database's enum is their one definition). */
export const PROPOSAL_STATUSES: readonly ProposalStatus[] = proposalStatusEnum.enumValues;

/**
 * Statuses a proposal never leaves. `outcome_unknown` is not one: reconciliation settles it. The
 * typed and the Python client keep their own copies (they depend on nothing of the server);
 * test/client-definitions.test.ts holds them to these.
 */
export const FINAL_STATUSES = [
  'succeeded',
  'failed',
  'rejected',
  'expired',
  'stale',
  'cancelled',
] as const satisfies readonly ProposalStatus[];
