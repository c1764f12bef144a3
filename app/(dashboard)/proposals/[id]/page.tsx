import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { getDb } from '@/db';
import { Countdown } from '@/components/countdown';
import { DecisionPanel, ExtendButton } from '@/components/decision-panel';
import { ExecutionSection } from '@/components/execution-section';
import { RevisionDiff } from '@/components/revision-diff';
import { appliedDefaults } from '@/lib/proposals/defaults';
import { revisionOrigin } from '@/lib/proposals/revise';
import { Hash } from '@/components/hash';
import { PayloadBlock, PayloadText } from '@/components/payload-text';
import { StatusChip } from '@/components/status-chip';
import { absoluteTime, Time } from '@/components/time';
import { auditTrailFor } from '@/lib/audit/append';
import { dashboardContext } from '@/lib/dashboard/context';
import { canonicalJson } from '@/lib/payload-hash';
import { getProposal, tenantOfProposal } from '@/lib/proposals/queries';
import { loadProposalView, routingContext } from '@/lib/proposals/view';

export const metadata: Metadata = { title: 'Proposal' };

function Field({ name, value, note }: { name: string; value: unknown; note?: string }) {
  return (
    <tr className="border-t border-zinc-100 dark:border-zinc-800">
      <th scope="row" className="py-1.5 pr-4 text-left align-top font-mono text-sm font-normal text-zinc-500">{name}</th>
      <td className="py-1.5 text-sm" data-testid={`arg-${name}`}>
        <PayloadText value={typeof value === 'string' ? value : JSON.stringify(value)} />
        {note ? <span className="ml-2 text-zinc-500">· {note}</span> : null}
      </td>
    </tr>
  );
}

export default async function ProposalPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const context = await dashboardContext(`/proposals/${id}`);
  const db = await getDb();
  const tenantId = await tenantOfProposal(db, id);
  const membership = context.operator.memberships.find((m) => m.tenantId === tenantId);
  const proposal = membership ? await getProposal(db, membership.tenantId, id) : undefined;
  if (!membership || !proposal) notFound();

  const { payload } = proposal;
  const now = new Date();
  const origin = await revisionOrigin(db, proposal);
  // A revision stores the edited arguments as sent, not an envelope: nothing was defaulted by an agent.
  const defaults = origin ? [] : appliedDefaults(proposal.rawCandidate, payload);
  // Who may do what is the API's answer too (GET /api/v1/proposals/:id → viewer).
  const [view, trail] = await Promise.all([
    loadProposalView(db, proposal, { userId: context.operator.userId, role: membership.role }, now),
    auditTrailFor(db, proposal.tenantId, proposal.id),
  ]);
  const { decisions, state: execution, wording, viewer: rights } = view;
  if (!rights) notFound();
  const expired = proposal.expiresAt.getTime() <= now.getTime();
  const approvals = decisions.filter((d) => d.decision === 'approve');
  const earlier = routingContext(proposal);
  const rejection = decisions.findLast((d) => d.decision === 'reject');
  const clock = (date: Date | null) => (date ? `${absoluteTime(date).slice(11, 16)} UTC` : '');
  const names = (list: typeof decisions) => list.map((d) => d.userName).join(' and ');
  const approvedThenOn = ['approved', 'executing', 'succeeded', 'failed', 'outcome_unknown'].includes(proposal.status);
  const outcome =
    approvedThenOn
      ? approvals.length > 0
        ? `Approved by ${names(approvals)} ${clock(proposal.decidedAt)}`
        : `Approved automatically by rule ${proposal.routing.rule} ${clock(proposal.decidedAt)}`
      : proposal.status === 'rejected'
        ? `Rejected${rejection ? ` by ${rejection.userName}` : ''}${proposal.statusReason ? ` — ${proposal.statusReason}` : ''}`
        : proposal.status === 'expired'
          ? 'Expired — a timeout never approves'
          : proposal.status === 'stale'
            ? `Stale — ${proposal.statusReason ?? 'the world moved since it was proposed'}`
            : undefined;

  return (
    <article className="space-y-6" data-testid="proposal-page" data-proposal-id={proposal.id}>
      <header className="space-y-2">
        <Link href="/" className="text-sm text-zinc-500 hover:underline">← Queue</Link>
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-xl font-semibold" data-testid="proposal-summary"><PayloadText value={wording.summary} mono={false} flagNonAscii={false} /></h1>
          <StatusChip status={proposal.status} />
          {proposal.status === 'pending_approval' ? <Countdown expiresAt={proposal.expiresAt.toISOString()} renderedAt={now.toISOString()} /> : null}
        </div>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Proposed by <span className="font-medium"><PayloadText value={proposal.agentName} mono={false} flagNonAscii={false} /></span> · <Time value={proposal.createdAt} now={now} /> · rule{' '}
          <span className="font-mono">{proposal.routing.rule}</span> v{proposal.routing.policyVersion} · needs {proposal.routing.approvals} {proposal.routing.role}
          {proposal.routing.approvals === 1 ? '' : 's'} ({approvals.length} of {proposal.routing.approvals} so far)
        </p>
        {earlier ? (
          <p className="text-sm font-medium text-amber-800 dark:text-amber-300" data-testid="routing-context">
            {earlier}
          </p>
        ) : null}
      </header>

      {origin ? <RevisionDiff parentId={origin.parentId} editor={origin.editor} changes={origin.changes} /> : null}

      <div className="grid gap-6 lg:grid-cols-[3fr_2fr]">
        <section aria-labelledby="will-run" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
          <div className="mb-2 flex items-baseline justify-between gap-2">
            <h2 id="will-run" className="font-semibold">What will run</h2>
            {rights.canEdit ? (
              <Link href={`/proposals/${proposal.id}/edit`} data-testid="edit-proposal" className="text-sm underline">Edit…</Link>
            ) : null}
          </div>
          <table className="w-full">
            <tbody>
              <Field name="action" value={payload.action} note={`contract v${payload.contractVersion}`} />
              <Field name="tenant" value={payload.tenantId} />
              {Object.entries(payload.args).map(([name, value]) => (
                <Field key={name} name={name} value={value} note={wording.argHints[name]} />
              ))}
              <tr className="border-t border-zinc-100 dark:border-zinc-800">
                <th scope="row" className="py-1.5 pr-4 text-left font-mono text-sm font-normal text-zinc-500">hash</th>
                <td className="py-1.5"><Hash value={proposal.payloadHash} /></td>
              </tr>
            </tbody>
          </table>
          {defaults.length > 0 ? (
            <p className="mt-3 text-xs text-zinc-600 dark:text-zinc-400" data-testid="applied-defaults">
              Filled in by the contract (the agent did not send them; they are hashed and run like the rest):{' '}
              {defaults.map((item) => <code key={item.field} className="mr-2"><PayloadText value={`${item.field} = ${JSON.stringify(item.value)}`} /></code>)}
            </p>
          ) : null}
          <details className="mt-4" data-testid="canonical-json">
            <summary className="cursor-pointer text-sm font-medium">Canonical JSON (what is hashed)</summary>
            <PayloadBlock value={canonicalJson(payload)} />
          </details>
          <details className="mt-2" data-testid="raw-candidate">
            <summary className="cursor-pointer text-sm font-medium">As received (untrusted)</summary>
            <PayloadBlock value={proposal.rawCandidate} />
          </details>
        </section>

        <div className="space-y-6">
          <section aria-labelledby="evidence" className="rounded-lg border border-dashed border-orange-300 bg-orange-50/50 p-4 dark:border-orange-800 dark:bg-orange-950/20">
            <h2 id="evidence" className="mb-2 font-semibold">Evidence — untrusted, written by external parties</h2>
            {proposal.evidence.length === 0 ? (
              <p className="text-sm text-zinc-500">No evidence cited.</p>
            ) : (
              <ul className="space-y-3 text-sm" data-testid="evidence">
                {proposal.evidence.map((item) => (
                  <li key={item.id} data-testid="evidence-item">
                    <p className="text-xs text-zinc-500"><PayloadText value={item.id} /> · <PayloadText value={item.kind.replace(/_/g, ' ')} mono={false} /></p>
                    <blockquote className="mt-1 whitespace-pre-wrap border-l-2 border-orange-300 pl-2 dark:border-orange-800"><PayloadText value={item.text} mono={false} /></blockquote>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-labelledby="checks" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
            <h2 id="checks" className="mb-2 font-semibold">Checks</h2>
            <ul className="space-y-1 text-sm" data-testid="gates">
              {proposal.gates.map((gate) => (
                <li key={gate.gate} className="flex gap-2">
                  <span aria-hidden>{gate.ok ? '✓' : '✗'}</span>
                  <span className="w-20 capitalize">{gate.gate}</span>
                  <span className="text-zinc-600 dark:text-zinc-400"><PayloadText value={gate.detail ?? ''} mono={false} flagNonAscii={false} /></span>
                </li>
              ))}
            </ul>
          </section>
        </div>
      </div>

      <section aria-labelledby="decision" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
        <h2 id="decision" className="mb-3 font-semibold">Decision</h2>
        {decisions.length > 0 ? (
          <ul className="mb-3 space-y-1 text-sm" data-testid="decisions">
            {decisions.map((d) => (
              <li key={d.userId}>
                {d.decision === 'approve' ? 'Approved' : 'Rejected'} by <span className="font-medium">{d.userName}</span> <Time value={d.createdAt} now={now} />
                {d.reason ? <> — “<PayloadText value={d.reason} />”</> : null}
              </li>
            ))}
          </ul>
        ) : null}
        {proposal.status === 'pending_approval' ? (
          <div className="mb-3 flex flex-wrap items-center gap-3 text-sm">
            <span data-testid="approval-progress" className="font-medium">
              {approvals.length} of {proposal.routing.approvals} approval{proposal.routing.approvals === 1 ? '' : 's'}
            </span>
            {rights.canExtend ? <ExtendButton proposalId={proposal.id} hours={rights.extendByHours} /> : null}
            {proposal.extendedAt ? (
              <span data-testid="extended-note" className="text-zinc-500" title={absoluteTime(proposal.extendedAt)}>
                extended once ({clock(proposal.extendedAt)}); it cannot be extended again
              </span>
            ) : null}
          </div>
        ) : null}
        {rights.canReject ? (
          <DecisionPanel proposalId={proposal.id} payloadHash={proposal.payloadHash} approveLabel={wording.approveLabel} canApprove={rights.canApprove} />
        ) : outcome ? (
          <p className="text-sm font-medium" data-testid="decision-outcome" data-status={proposal.status}>
            <PayloadText value={outcome} mono={false} flagNonAscii={false} />
          </p>
        ) : (
          <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="decision-state">
            {proposal.status === 'pending_approval'
              ? expired
                ? 'Expired — a timeout never approves.'
                : rights.mayDecide
                  ? 'You have already decided; waiting for another approver.'
                  : `You are a ${membership.role}: deciding needs the ${proposal.routing.role} role.`
              : `This proposal is ${proposal.status.replace('_', ' ')}${proposal.decidedAt ? ` since ${absoluteTime(proposal.decidedAt)}` : ''}.`}
          </p>
        )}
      </section>

      <ExecutionSection status={proposal.status} receiptNoun={wording.receiptNoun} statusReason={proposal.statusReason} state={execution} renderedAt={now.toISOString()} />

      <section aria-labelledby="history" className="text-sm">
        <h2 id="history" className="mb-2 font-semibold">History</h2>
        <ol className="space-y-1 text-zinc-600 dark:text-zinc-400" data-testid="proposal-history">
          {trail.map((event) => (
            <li key={event.seq}>
              <span title={absoluteTime(new Date(event.occurredAt))}>{absoluteTime(new Date(event.occurredAt)).slice(11)}</span> · {event.type} by {event.actorType}{' '}
              <PayloadText value={typeof event.data.agent === 'string' ? event.data.agent : event.actorId} />
            </li>
          ))}
        </ol>
        <p className="mt-3 text-zinc-600 dark:text-zinc-400" data-testid="evidence-bundle">
          <a href={`/api/v1/proposals/${proposal.id}/evidence-bundle`} download={`evidence-${proposal.id}.json`} className="font-medium text-zinc-900 underline dark:text-zinc-100" data-testid="evidence-bundle-download">
            Download evidence bundle
          </a>{' '}
          — <code className="font-mono text-xs">npm run cli -- bundle:verify &lt;file&gt;</code> checks it offline, without trusting this server.
        </p>
      </section>
    </article>
  );
}
