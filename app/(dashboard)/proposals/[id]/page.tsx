import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { ActorName } from '@/components/actor-name';
import { Countdown } from '@/components/countdown';
import { ExecutionSection } from '@/components/execution-section';
import { FlagChips } from '@/components/flag-chips';
import { LiveFacts } from '@/components/fresh-facts';
import { Hash } from '@/components/hash';
import { PayloadBlock, PayloadText } from '@/components/payload-text';
import { ProposalChecks } from '@/components/proposal-checks';
import { ProposalDecision } from '@/components/proposal-decision';
import { ProposalKeys } from '@/components/proposal-keys';
import { ProposalResourceHistory } from '@/components/proposal-resource-history';
import { RiskBadge } from '@/components/queue-signals';
import { ReproposeButton } from '@/components/repropose-button';
import { RevisionDiff } from '@/components/revision-diff';
import { StatusChip } from '@/components/status-chip';
import { Time } from '@/components/time';
import { PropertyRow, PropertyTable } from '@/components/ui/table';
import { ViewerClock, ViewerZone } from '@/components/viewer-time';
import { actorResolver } from '@/lib/audit/actors';
import { withdrawalEventWords } from '@/lib/audit/history-view';
import { dashboardContext } from '@/lib/dashboard/context';
import { grantOfferFor } from '@/lib/dashboard/grant-offer';
import { getDb } from '@/lib/database';
import { passkeyStateFor } from '@/lib/decisions/passkey-signature';
import { readProposalView } from '@/lib/decisions/proposal-view';
import { reproposable } from '@/lib/decisions/repropose';
import { revisionOrigin } from '@/lib/decisions/revise';
import { auditEventTitle } from '@/lib/events/registry';
import { auditTrailFor } from '@/lib/events/trail';
import { pageChannel, recordServed } from '@/lib/oversight/views';
import { canonicalJson } from '@/lib/payload-hash';
import { appliedDefaults } from '@/lib/proposals/defaults';
import { tenantOfProposal } from '@/lib/proposals/lookup';
import { neighboursOf } from '@/lib/proposals/neighbours';
import { resourceHistory, resourceLabel } from '@/lib/proposals/resource-history';
import { routingContext } from '@/lib/proposals/wording';
import { payloadTitle, standingApprovals } from '@/lib/proposals/words';

/**
 * The proposal's view for the viewer (a member of its tenant), or undefined for an unknown id or one
 * of a tenant the viewer is not a member of (the same answer, so neither leaks). The proposal and its
 * execution come from one snapshot (readProposalView). Once per request.
 */
const proposalForViewer = cache(async (id: string) => {
  const context = await dashboardContext(`/proposals/${id}`);
  const db = await getDb();
  const tenantId = await tenantOfProposal(db, id);
  const membership = context.operator.memberships.find((m) => m.tenantId === tenantId);
  if (!membership) return undefined;
  const now = new Date();
  // Who may do what is the API's answer too (GET /api/v1/proposals/:id → viewer).
  const viewer = { userId: context.operator.userId, role: membership.role };
  const view = await readProposalView(db, membership.tenantId, id, viewer, now);
  return view ? { db, view, viewer, now } : undefined;
});

/** The tab is titled with the proposal's summary ("Hold 2 × filter-blue · Countersign"), never another tenant's. */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const found = await proposalForViewer((await params).id);
  return { title: found ? found.view.wording.summary : 'Proposal' };
}

function Field({ name, value, note }: { name: string; value: unknown; note?: string }) {
  return (
    <PropertyRow name={name} valueTestId={`arg-${name}`}>
      <PayloadText value={typeof value === 'string' ? value : JSON.stringify(value)} />
      {note ? <span className="ml-2 text-zinc-500">· {note}</span> : null}
    </PropertyRow>
  );
}

export default async function ProposalPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const found = await proposalForViewer((await params).id);
  if (!found) notFound();
  const { db, view, viewer, now } = found;
  const { proposal } = view;
  // Served to the person: their first look at a waiting proposal, for the oversight figures (once per person and
  // proposal).
  await recordServed(db, proposal, { userId: viewer.userId, channel: pageChannel((await searchParams).via), at: now });

  const { payload } = proposal;
  const origin = await revisionOrigin(db, proposal);
  // A revision stores the edited arguments as sent, not an envelope: nothing was defaulted by an agent.
  const defaults = origin ? [] : appliedDefaults(proposal.rawCandidate, payload);
  const [trail, neighbours, others, passkey] = await Promise.all([
    auditTrailFor(db, proposal.tenantId, proposal.id),
    neighboursOf(db, proposal.tenantId, proposal.id, viewer, now),
    proposal.resourceKey
      ? resourceHistory(db, proposal.tenantId, proposal.resourceKey, proposal.id)
      : Promise.resolve(null),
    view.viewer?.canReject ? passkeyStateFor(db, proposal, viewer.userId) : Promise.resolve(undefined),
  ]);
  // Every actor of the timeline named in one look-up inside the tenant.
  const actorOf = await actorResolver(db, proposal.tenantId, trail);
  const { decisions, state: execution, wording, viewer: rights } = view;
  if (!rights) notFound();
  const earlier = routingContext(proposal);

  return (
    // On a phone the decision buttons are fixed at the bottom: leave room for them below the last section.
    <article
      className={`space-y-6 ${rights.canReject ? 'max-lg:pb-28' : ''}`}
      data-testid="proposal-page"
      data-proposal-id={proposal.id}
    >
      <header className="space-y-2">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <Link href="/" className="text-sm text-zinc-600 hover:underline dark:text-zinc-400">
            ← Queue
          </Link>
          <ProposalKeys previousId={neighbours.previous} nextId={neighbours.next} canDecide={rights.canReject} />
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-xl font-semibold" data-testid="proposal-summary">
            <PayloadText value={wording.summary} mono={false} />
          </h1>
          <StatusChip status={proposal.status} />
          <RiskBadge
            item={{
              risk: proposal.risk,
              flags: proposal.flags,
              approvals: { have: standingApprovals(decisions).length, need: proposal.routing.approvals },
            }}
            testId="proposal-severity"
          />
          {proposal.status === 'pending_approval' ? (
            <Countdown expiresAt={proposal.expiresAt.toISOString()} renderedAt={now.toISOString()} />
          ) : null}
        </div>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Proposed by agent{' '}
          <span className="font-medium">
            <PayloadText value={proposal.agentName} mono={false} />
          </span>{' '}
          · <Time value={proposal.createdAt} now={now} /> · rule{' '}
          <span className="font-mono">{proposal.routing.rule}</span> v{proposal.routing.policyVersion} · needs{' '}
          {proposal.routing.approvals} {proposal.routing.role}
          {proposal.routing.approvals === 1 ? '' : 's'}
        </p>
        <FlagChips flags={proposal.flags} detailed testId="proposal-flags" />
        {earlier ? (
          <p className="text-sm font-medium text-amber-800 dark:text-amber-300" data-testid="routing-context">
            {earlier}
          </p>
        ) : null}
      </header>

      {origin ? (
        <RevisionDiff
          parentId={origin.parentId}
          editor={origin.editor}
          reason={origin.reason}
          changes={origin.changes}
        />
      ) : null}

      <div className="grid gap-6 lg:grid-cols-[3fr_2fr]">
        <section
          aria-labelledby="will-run"
          className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900"
        >
          <div className="mb-2 flex items-baseline justify-between gap-2">
            <h2 id="will-run" className="font-semibold" data-testid="payload-title">
              {payloadTitle(proposal.status)}
            </h2>
            {rights.canEdit ? (
              <Link href={`/proposals/${proposal.id}/edit`} data-testid="edit-proposal" className="text-sm underline">
                Edit…
              </Link>
            ) : null}
          </div>
          <PropertyTable caption="The payload that runs on approval, and its hash">
            <Field name="action" value={payload.action} note={`contract v${payload.contractVersion}`} />
            <Field name="tenant" value={payload.tenantId} />
            {Object.entries(payload.args).map(([name, value]) => (
              <Field key={name} name={name} value={value} note={wording.argHints[name]} />
            ))}
            <PropertyRow name="hash">
              <Hash value={proposal.payloadHash} />
            </PropertyRow>
          </PropertyTable>
          {defaults.length > 0 ? (
            <p className="mt-3 text-xs text-zinc-600 dark:text-zinc-400" data-testid="applied-defaults">
              Filled in by the contract (the agent did not send them; they are hashed and run like the rest):{' '}
              {defaults.map((item) => (
                <code key={item.field} className="mr-2">
                  <PayloadText value={`${item.field} = ${JSON.stringify(item.value)}`} />
                </code>
              ))}
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
          <section
            aria-labelledby="evidence"
            className={
              'rounded-lg border border-dashed border-orange-300 bg-orange-50/50 p-4 dark:border-orange-800 ' +
              'dark:bg-orange-950/20'
            }
          >
            <h2 id="evidence" className="mb-2 font-semibold">
              Evidence — untrusted, written by external parties
            </h2>
            {proposal.evidence.length === 0 ? (
              <p className="text-sm text-zinc-500">No evidence cited.</p>
            ) : (
              <ul className="space-y-3 text-sm" data-testid="evidence">
                {proposal.evidence.map((item) => (
                  <li key={item.id} data-testid="evidence-item">
                    <p className="text-xs text-zinc-500">
                      <PayloadText value={item.id} /> ·{' '}
                      <PayloadText value={item.kind.replace(/_/g, ' ')} mono={false} />
                    </p>
                    <blockquote
                      className={'mt-1 whitespace-pre-wrap border-l-2 border-orange-300 pl-2 dark:border-orange-800'}
                    >
                      <PayloadText value={item.text} mono={false} />
                    </blockquote>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <ProposalChecks
            gates={proposal.gates}
            facts={
              <LiveFacts
                proposalId={proposal.id}
                pending={proposal.status === 'pending_approval'}
                knownChanged={proposal.drift !== null}
                atProposal={{
                  at: proposal.createdAt.toISOString(),
                  detail: proposal.gates.find((gate) => gate.gate === 'meaning' && gate.ok)?.detail ?? null,
                }}
              />
            }
          />
        </div>
      </div>

      <ProposalDecision
        proposal={proposal}
        decisions={decisions}
        wording={wording}
        rights={rights}
        role={viewer.role}
        nextId={neighbours.next}
        now={now}
        extendedBy={trail.findLast((event) => event.type === 'proposal.extended')?.actorName ?? null}
        passkey={passkey}
        grantOffer={grantOfferFor(proposal, rights, passkey?.required ?? false)}
        granter={
          proposal.grantId
            ? (trail.find((event) => event.type === 'proposal.approved' && event.reasonCode === 'grant')?.actorName ??
              null)
            : null
        }
      />
      <ReproposeButton
        proposalId={proposal.id}
        requestedAt={view.reproposal?.requestedAt ?? null}
        canAsk={rights.mayDecide && reproposable(proposal)}
      />

      <ExecutionSection
        status={proposal.status}
        receiptNoun={wording.receiptNoun}
        statusReason={proposal.statusReason}
        state={execution}
        renderedAt={now.toISOString()}
      />

      {proposal.resourceKey && others ? (
        <ProposalResourceHistory resource={resourceLabel(proposal.resourceKey)} items={others} now={now} />
      ) : null}

      <section aria-labelledby="history" className="text-sm">
        <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="history" className="font-semibold">
            History
          </h2>
          <ViewerZone />
        </div>
        <ol className="space-y-1 text-zinc-600 dark:text-zinc-400" data-testid="proposal-history">
          {trail.map((event) => {
            const actor = actorOf(event);
            return (
              <li key={event.seq} data-testid="proposal-history-event" data-type={event.type}>
                <ViewerClock value={new Date(event.occurredAt).toISOString()} seconds /> ·{' '}
                {/* A withdrawal says whose and why in place of its title
                    ("Approval withdrawn Bob's approval was withdrawn…" said it twice). */}
                {event.type === 'proposal.approval_withdrawn' ? (
                  <span title={event.type} data-testid="proposal-history-withdrawal">
                    <PayloadText value={withdrawalEventWords(event.data)} mono={false} /> —
                  </span>
                ) : (
                  <span title={event.type}>{auditEventTitle(event.type)}</span>
                )}{' '}
                {event.reasonCode === 'grant' ? (
                  <span data-testid="proposal-history-grant">under grant {String(event.data.grant)} from</span>
                ) : (
                  'by'
                )}{' '}
                <ActorName id={actor.id} label={actor.label} testId="proposal-history-actor" />
              </li>
            );
          })}
        </ol>
        <p className="mt-3 text-zinc-600 dark:text-zinc-400" data-testid="evidence-bundle">
          <a
            href={`/api/v1/proposals/${proposal.id}/evidence-bundle`}
            download={`evidence-${proposal.id}.json`}
            className="font-medium text-zinc-900 underline dark:text-zinc-100"
            data-testid="evidence-bundle-download"
          >
            Download evidence bundle
          </a>{' '}
          — <code className="font-mono text-xs">npm run cli -- bundle:verify &lt;file&gt;</code> checks it offline,
          without trusting this server.
        </p>
      </section>
    </article>
  );
}
