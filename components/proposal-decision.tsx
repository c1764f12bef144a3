import { withdrawalWords } from '@/lib/audit/history-view';
import type { GrantOffer } from '@/lib/dashboard/grant-offer';
import type { ViewerRights } from '@/lib/decisions/viewer-rights';
import type { DecisionRow } from '@/lib/proposals/decision-rows';
import type { ProposalWording } from '@/lib/proposals/wording';
import { standingApprovals } from '@/lib/proposals/words';
import type { Proposal, Role } from '@/lib/records';
import { DecisionPanel, ExtendButton } from './decision-panel';
import { GrantOutcomeNote } from './grant-outcome';
import type { PasskeyState } from './passkey-sign';
import { PayloadText } from './payload-text';
import { Time } from './time';
import { ViewerClock } from './viewer-time';

const APPROVED_THEN_ON: Proposal['status'][] = ['approved', 'executing', 'succeeded', 'failed', 'outcome_unknown'];

const names = (list: DecisionRow[]) => list.map((d) => d.userName).join(' and ');

/**
 * How the proposal ended, in one line, and which decisions that line already tells of (so the
 * list below it never says "Approved by Alice" a second time). Undefined while it is open.
 */
function outcomeOf(
  proposal: Proposal,
  decisions: DecisionRow[],
  granter: string | null,
): { line: React.ReactNode; covered: DecisionRow[] } | undefined {
  const at = proposal.decidedAt ? (
    <>
      {' '}
      · <ViewerClock value={proposal.decidedAt.toISOString()} testId="decision-outcome-time" />
    </>
  ) : null;
  if (APPROVED_THEN_ON.includes(proposal.status)) {
    const approvals = standingApprovals(decisions);
    const who = proposal.grantId
      ? `Approved under grant ${proposal.grantId} from ${granter ?? 'a former member'} (no one looked at this proposal)`
      : approvals.length > 0
        ? `Approved by ${names(approvals)}`
        : `Approved automatically by rule ${proposal.routing.rule}`;
    return {
      line: (
        <>
          <PayloadText value={who} mono={false} />
          {at}
        </>
      ),
      covered: approvals,
    };
  }
  if (proposal.status === 'rejected') {
    const rejection = decisions.findLast((d) => d.decision === 'reject');
    const reason = rejection?.reason ?? proposal.statusReason;
    return {
      line: (
        <>
          Rejected{rejection ? ` by ${rejection.userName}` : ''}
          {at}
          {reason ? (
            <>
              {' '}
              — “<PayloadText value={reason} />”
            </>
          ) : null}
        </>
      ),
      covered: rejection ? [rejection] : [],
    };
  }
  if (proposal.status === 'expired') return { line: 'Expired — a timeout never approves', covered: [] };
  if (proposal.status === 'stale')
    return {
      line: (
        <>
          Stale — <PayloadText value={proposal.statusReason ?? 'the world moved since it was proposed'} mono={false} />
        </>
      ),
      covered: [],
    };
  if (proposal.status === 'cancelled')
    return {
      line: (
        <>
          Cancelled{at}
          {proposal.statusReason ? (
            <>
              {' '}
              — <PayloadText value={proposal.statusReason} mono={false} />
            </>
          ) : null}
        </>
      ),
      covered: [],
    };
  return undefined;
}

type Props = {
  proposal: Proposal;
  decisions: DecisionRow[];
  wording: ProposalWording;
  rights: ViewerRights;
  role: Role;
  nextId: string | null;
  now: Date;
  /** Who extended it (the audit event's name), when someone did. */
  extendedBy: string | null;
  /** Whether deciding must or may be signed with the person's passkey. */
  passkey?: PasskeyState;
  /**
   * Where a standing grant could be made from this person's approval, what it would cover
   * (lib/dashboard/grant-offer.ts).
   */
  grantOffer?: GrantOffer;
  /** Who granted the standing grant that approved it, when one did. */
  granter?: string | null;
};

/** The DECISION section: the outcome once it ended, each person's decision once, and the buttons while it is open. */
export function ProposalDecision({
  proposal,
  decisions,
  wording,
  rights,
  role,
  nextId,
  now,
  extendedBy,
  passkey,
  grantOffer,
  granter = null,
}: Props) {
  const outcome = outcomeOf(proposal, decisions, granter);
  const listed = decisions.filter((d) => !outcome?.covered.includes(d));
  const approvals = standingApprovals(decisions).length;
  const need = proposal.routing.approvals;
  const expired = proposal.expiresAt.getTime() <= now.getTime();
  return (
    <section
      aria-labelledby="decision"
      className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900"
    >
      <h2 id="decision" className="mb-3 font-semibold">
        Decision
      </h2>
      {outcome ? (
        <p className="mb-3 text-sm font-medium last:mb-0" data-testid="decision-outcome" data-status={proposal.status}>
          {outcome.line}
        </p>
      ) : null}
      {listed.length > 0 ? (
        <ul className="mb-3 space-y-1 text-sm last:mb-0" data-testid="decisions">
          {listed.map((d) => (
            <li key={d.userId} data-withdrawn={d.withdrawn ? 'true' : undefined}>
              <span className={d.withdrawn ? 'line-through' : undefined}>
                {d.decision === 'approve' ? 'Approved' : 'Rejected'} by{' '}
                <span className="font-medium">{d.userName}</span>
              </span>{' '}
              · <Time value={d.createdAt} now={now} />
              {d.reason ? (
                <>
                  {' '}
                  — “<PayloadText value={d.reason} />”
                </>
              ) : null}
              {d.withdrawn ? (
                <p className="text-amber-800 dark:text-amber-300" data-testid="approval-withdrawn">
                  <PayloadText value={withdrawalWords(d.userName, d.withdrawn.role)} mono={false} /> ·{' '}
                  <Time value={d.withdrawn.at} now={now} />. It no longer counts.
                </p>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {proposal.status === 'pending_approval' ? (
        <div className="mb-3 flex flex-wrap items-center gap-3 text-sm">
          <span data-testid="approval-progress" className="font-medium">
            {approvals} of {need} approval{need === 1 ? '' : 's'}
          </span>
          {rights.canExtend ? (
            <ExtendButton
              proposalId={proposal.id}
              hours={rights.extendByHours}
              expiresAt={proposal.expiresAt.toISOString()}
              announce={!rights.canReject}
            />
          ) : null}
          {proposal.extendedAt ? (
            <span
              data-testid="extended-note"
              className="text-zinc-600 dark:text-zinc-400"
              title="A proposal is extended once; it cannot be extended again."
            >
              Extended by <PayloadText value={extendedBy ?? 'someone'} mono={false} /> → now expires{' '}
              <ViewerClock value={proposal.expiresAt.toISOString()} testId="extended-until" />
            </span>
          ) : null}
        </div>
      ) : null}
      {rights.canReject ? (
        <DecisionPanel
          proposalId={proposal.id}
          payloadHash={proposal.payloadHash}
          approveLabel={wording.approveLabel}
          summary={wording.summary}
          canApprove={rights.canApprove}
          nextId={nextId}
          flagKinds={proposal.flags.map((flag) => flag.kind)}
          passkey={passkey}
          grantOffer={grantOffer}
        />
      ) : !outcome ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="decision-state">
          {proposal.status !== 'pending_approval'
            ? `This proposal is ${proposal.status.replace('_', ' ')}.`
            : expired
              ? 'Expired — a timeout never approves.'
              : rights.mayDecide
                ? 'You have already decided; waiting for another approver.'
                : `You are a ${role}: deciding needs the ${proposal.routing.role} role.`}
        </p>
      ) : null}
      <GrantOutcomeNote proposalId={proposal.id} />
    </section>
  );
}
