import 'server-only';
import type { Proposal } from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import type { ActionModule } from '@/lib/actions/types';

/** A proposal in its action's words (lib/actions/<action>); a generic fallback for an unknown action. */
export type ProposalWording = {
  /** The effect in one sentence ("Refund 49.99 USD on order ord_1842"). */
  summary: string;
  /** The approve button ("Approve refund of 49.99 USD"). */
  approveLabel: string;
  /** Words beside raw argument values ("4999" → "49.99 USD"). */
  argHints: Record<string, string>;
  /** What a receipt is called ("refund"). */
  receiptNoun: string;
};

/** `action`: the proposal's action as its tenant has it (a declared one is none of the shipped modules). */
export function wordingOf(
  proposal: Pick<Proposal, 'action' | 'payload' | 'facts'>,
  action: ActionModule | undefined = findAction(proposal.action),
): ProposalWording {
  const { args } = proposal.payload;
  return {
    summary: action?.summarize(args, proposal.facts) ?? proposal.action,
    approveLabel: action?.approveLabel(args) ?? 'Approve',
    argHints: action?.argHints?.(args) ?? {},
    receiptNoun: action?.receiptNoun?.(args) ?? proposal.action.replace(/_/g, ' '),
  };
}

/**
 * The earlier proposals an aggregate bound counted, in the action's words, or null when there
 * were none ("With 2 earlier refunds on ord_1843 in the last 24 h: 300.00 EUR in all").
 */
export function routingContext(proposal: Proposal): string | null {
  const aggregate = proposal.routing.aggregate;
  if (!aggregate || aggregate.priorCount === 0) return null;
  const { args } = proposal.payload;
  const described = findAction(proposal.action)?.describeAggregate?.(args, aggregate);
  if (described) return described;
  const { priorCount, windowHours, field, total } = aggregate;
  return (
    `With ${priorCount} earlier proposal${priorCount === 1 ? '' : 's'} of this action ` +
    `on ${proposal.resourceKey ?? 'this resource'} in the last ${windowHours} h: ${field} ${total} in all`
  );
}
