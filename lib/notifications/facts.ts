import type { Proposal } from '@/db/schema';
import { NOTIFICATION_EVENTS, type NotificationEvent } from '@/lib/events/registry';
import { type SeverityLevel, severityOf } from '@/lib/shared/severity';
import { resourceWords } from '@/lib/text/visible';

/**
 * The value-free facts of a message about a proposal (docs/notifications.md, "What a message
 * says"): what a person needs to decide whether to open it, and nothing an agent or an external
 * party wrote. Built once, at fan-out, and stored with each delivery; every channel kind renders
 * the same facts (`factLines` in ./render.ts).
 *
 * - `resource`: the record the proposal acts on, as the system of record named it at intake
 *   ("order ord_1842", "sku filter-blue") — an identifier, never an amount, a reason or evidence.
 * - `flags`: the flags' chip labels (our words), never their details (which quote agent text).
 * - `severity`: the one severity the dashboard shows (lib/shared/severity.ts).
 * - `approvals` / `approvalsNeeded`: the quorum so far ("1 of 2").
 * - `needsYou`: the message is for those who can decide it, and a decision is still missing.
 * - `revisionOf` / `editedBy`: a revision names its parent and its editor (the editor's reason,
 *   their own words, rides along as `revisionReason`).
 */
export type ProposalFacts = {
  resource?: string;
  flags?: string;
  severity: SeverityLevel;
  approvals: number;
  approvalsNeeded: number;
  needsYou: boolean;
  revisionOf?: string;
  editedBy?: string;
};

export type FactsContext = {
  /** Approvals recorded so far. */
  approvals: number;
  /** The editor's name, for a revision. */
  editedBy?: string;
};

export function proposalFacts(
  event: NotificationEvent,
  proposal: Pick<Proposal, 'risk' | 'flags' | 'routing' | 'resourceKey' | 'parentId' | 'status'>,
  status: string,
  context: FactsContext,
): ProposalFacts {
  const approvalsNeeded = proposal.routing.outcome === 'needs_approval' ? proposal.routing.approvals : 0;
  const facts: ProposalFacts = {
    severity: severityOf({ risk: proposal.risk, flags: proposal.flags, approvalsNeeded }).level,
    approvals: context.approvals,
    approvalsNeeded,
    needsYou:
      NOTIFICATION_EVENTS[event].audience === 'deciders' &&
      status === 'pending_approval' &&
      context.approvals < approvalsNeeded,
  };
  if (proposal.resourceKey) facts.resource = resourceWords(proposal.resourceKey);
  if (proposal.flags.length > 0) facts.flags = proposal.flags.map((flag) => flag.label).join(', ');
  if (proposal.parentId) facts.revisionOf = proposal.parentId;
  if (proposal.parentId && context.editedBy) facts.editedBy = context.editedBy;
  return facts;
}
