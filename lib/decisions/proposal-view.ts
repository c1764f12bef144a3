import 'server-only';
import type { Database } from '@/db';
import type { Proposal } from '@/db/schema';
import { actionFinder } from '@/lib/definitions/catalog';
import { type DecisionRow, decisionsFor } from '@/lib/proposals/decision-rows';
import { type ExecutionState, executionStateFor } from '@/lib/proposals/execution-state';
import { getProposal } from '@/lib/proposals/lookup';
import { type ProposalWording, wordingOf } from '@/lib/proposals/wording';
import { initiatorsOf } from './initiators';
import { type Reproposal, reproposalOf } from './repropose';
import { type Viewer, type ViewerRights, viewerRights } from './viewer-rights';

/** A proposal with what goes with it: its decisions, execution state, words and, for an operator, their rights. */
export type ProposalView = {
  proposal: Proposal;
  decisions: DecisionRow[];
  state: ExecutionState;
  wording: ProposalWording;
  viewer: ViewerRights | null;
  /** An operator asked the agent to propose again (stale, or changed since proposed). */
  reproposal: Reproposal | null;
};

/**
 * The one view of a proposal the page, the API and the MCP status tool share, read from one
 * snapshot (a read-only REPEATABLE READ transaction): read one by one, a poll racing reconciliation
 * answered `outcome_unknown` beside an execution already `failed`. `viewer` is an operator of the
 * tenant; undefined when the tenant has no such proposal.
 */
export async function readProposalView(
  db: Database,
  tenantId: string,
  id: string,
  viewer?: Viewer,
  now = new Date(),
): Promise<ProposalView | undefined> {
  return db.transaction(
    async (tx) => {
      const proposal = await getProposal(tx, tenantId, id);
      return proposal ? viewOf(tx, proposal, viewer, now) : undefined;
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

async function viewOf(db: Database, proposal: Proposal, viewer: Viewer | undefined, now: Date): Promise<ProposalView> {
  const [decisions, state, initiators, reproposal] = await Promise.all([
    decisionsFor(db, proposal.tenantId, proposal.id),
    executionStateFor(db, proposal.tenantId, proposal.id),
    viewer ? initiatorsOf(db, proposal) : Promise.resolve(new Set<string>()),
    reproposalOf(db, proposal),
  ]);
  return {
    proposal,
    decisions,
    state,
    wording: wordingOf(proposal, (await actionFinder(db, proposal.tenantId, [proposal.action]))(proposal.action)),
    viewer: viewer ? viewerRights(proposal, decisions, viewer, initiators, now) : null,
    reproposal,
  };
}
