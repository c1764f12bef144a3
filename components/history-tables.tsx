import Link from 'next/link';
import type { DecisionRowView, EventRowView } from '@/lib/audit/history-view';
import type { ProposalStatus } from '@/lib/records';
import { ActorName } from './actor-name';
import { Hash } from './hash';
import { PayloadText } from './payload-text';
import { StatusChip } from './status-chip';
import { humanDuration } from './time';
import { CARD_ROW, CardCell, Table } from './ui/table';
import { ViewerTime } from './viewer-time';

const proposalHref = (id: string) => `/proposals/${encodeURIComponent(id)}`;

/** How the proposal ended, in words: who decided, and the reason where there is one. */
function outcomeWords(row: DecisionRowView): string {
  const approvers = row.deciders.filter((d) => d.decision === 'approve' && !d.withdrawn).map((d) => d.name);
  const withdrawn = row.deciders.filter((d) => d.withdrawn).map((d) => `${d.name}'s approval withdrawn`);
  const rejecter = row.deciders.find((d) => d.decision === 'reject')?.name;
  return `${endWords(row, approvers, rejecter)}${withdrawn.length > 0 ? ` (${withdrawn.join(', ')})` : ''}`;
}

function endWords(row: DecisionRowView, approvers: readonly string[], rejecter: string | undefined): string {
  switch (row.status) {
    case 'rejected':
      return `Rejected${rejecter ? ` by ${rejecter}` : ''}`;
    case 'expired':
      return 'Expired undecided';
    case 'stale':
      return 'Stale';
    case 'cancelled':
      return 'Cancelled by revision';
    default:
      if (row.grant) return `Approved under grant ${row.grant.id} from ${row.grant.from}`;
      return approvers.length > 0 ? `Approved by ${approvers.join(', ')}` : 'Approved automatically';
  }
}

function executionWords(row: DecisionRowView): string {
  const execution = row.execution;
  if (!execution) return ['approved', 'executing'].includes(row.status) ? 'not executed yet' : '—';
  if (execution.status === 'succeeded') return 'succeeded';
  if (execution.status === 'outcome_unknown') return 'outcome unknown — checking';
  return `${execution.status.replace('_', ' ')}${execution.errorCode ? ` (${execution.errorCode})` : ''}`;
}

const DECISION_HEAD = ['Decided', 'Proposal', 'Agent', 'Outcome', 'Execution', 'Payload hash', 'Time to decision'];

/** The Decisions view: one row per proposal that reached a decision or an end. */
export function DecisionsTable({ rows }: { rows: DecisionRowView[] }) {
  return (
    <Table cards head={DECISION_HEAD} testId="history-decisions">
      {rows.map((row) => (
        <tr
          key={row.id}
          data-testid="history-decision"
          data-proposal-id={row.id}
          data-action={row.action}
          data-status={row.status}
          className={CARD_ROW}
        >
          <CardCell label="Decided">
            <ViewerTime value={row.at} />
          </CardCell>
          <CardCell label="Proposal" wide>
            <Link href={proposalHref(row.id)} data-testid="history-decision-link" className="font-medium underline">
              <PayloadText value={row.summary} mono={false} />
            </Link>
            <span className="block break-all font-mono text-xs text-zinc-500">
              {row.action} · {row.id}
            </span>
            {row.revisionReason ? (
              <span
                className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400"
                data-testid="history-decision-revision-reason"
              >
                Edited because: <PayloadText value={row.revisionReason} mono={false} />
              </span>
            ) : null}
          </CardCell>
          <CardCell label="Agent">
            <span data-testid="history-decision-agent" title={row.agentKeyId ?? undefined}>
              <PayloadText value={row.agentLabel} mono={false} />
            </span>
          </CardCell>
          <CardCell label="Outcome">
            <span className="flex flex-wrap items-center gap-2">
              <StatusChip status={row.status as ProposalStatus} />
              <span data-testid="history-decision-outcome">{outcomeWords(row)}</span>
            </span>
            {row.reason ? (
              <span
                className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400"
                data-testid="history-decision-reason"
              >
                <PayloadText value={row.reason} mono={false} />
              </span>
            ) : null}
          </CardCell>
          <CardCell label="Execution">
            <span data-testid="history-decision-execution">
              {executionWords(row)}
              {/* An id, so it may break anywhere: the table then fits its width. */}
              {row.execution?.status === 'succeeded' && row.execution.receiptId ? (
                <>
                  {' '}
                  (<span className="break-all font-mono text-xs">{row.execution.receiptId}</span>)
                </>
              ) : null}
            </span>
          </CardCell>
          <CardCell label="Payload hash">
            <Hash value={row.payloadHash} testId="history-decision-hash" />
          </CardCell>
          <CardCell label="Time to decision">{humanDuration(row.timeToDecisionMs)}</CardCell>
        </tr>
      ))}
    </Table>
  );
}

const EVENT_HEAD = ['#', 'Time', 'Actor', 'Event', 'Proposal', 'Details'];

/** Every field an event's hash covers, its prevHash and its own hash: what the drawer lists. */
function hashedFields(event: EventRowView): [string, string][] {
  return [
    ['tenantId', event.tenantId],
    ['seq', String(event.seq)],
    ['type', event.type],
    ['actorType', event.actorType],
    ['actorId', event.actorId],
    ['proposalId', event.proposalId ?? 'null'],
    ['payloadHash', event.payloadHash ?? 'null'],
    ['reasonCode', event.reasonCode ?? 'null'],
    ['contractVersion', event.contractVersion === null ? 'null' : String(event.contractVersion)],
    ['data', JSON.stringify(event.data)],
    ['occurredAt', event.occurredAt],
    ['prevHash', event.prevHash],
    ['hash', event.hash],
  ];
}

/** The Events view: every audit event with names and words, and a disclosure with its hashed fields. */
export function EventsTable({ rows }: { rows: EventRowView[] }) {
  return (
    <Table cards head={EVENT_HEAD} testId="history-events">
      {rows.map((event) => (
        <tr
          key={event.seq}
          data-testid="history-event"
          data-seq={event.seq}
          data-type={event.type}
          className={CARD_ROW}
        >
          <CardCell label="#" mono>
            {event.seq}
          </CardCell>
          <CardCell label="Time">
            <ViewerTime value={event.occurredAt} />
          </CardCell>
          <CardCell label="Actor">
            <ActorName id={event.actorId} label={event.actorLabel} testId="history-event-actor" />
          </CardCell>
          <CardCell label="Event" wide>
            <span className="block font-medium" data-testid="history-event-title" title={event.type}>
              {event.title}
            </span>
            <span data-testid="history-event-text">
              <PayloadText value={event.text} mono={false} />
            </span>
          </CardCell>
          <CardCell label="Proposal" mono>
            {event.proposalId ? (
              <Link className="underline" href={proposalHref(event.proposalId)}>
                <PayloadText value={event.proposalId} />
              </Link>
            ) : (
              '—'
            )}
          </CardCell>
          <CardCell label="Details">
            <details data-testid="history-event-details" className="group">
              <summary
                className={'cursor-pointer text-sm underline focus-visible:outline-2 focus-visible:outline-blue-600'}
              >
                Hashed fields
              </summary>
              <dl className="mt-2 grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-xs md:w-[28rem]">
                {hashedFields(event).map(([name, value]) => (
                  <div key={name} className="contents" data-testid={`history-event-field-${name}`}>
                    <dt className="font-mono text-zinc-500">{name}</dt>
                    <dd className="min-w-0">
                      <PayloadText value={value} />
                    </dd>
                  </div>
                ))}
              </dl>
            </details>
          </CardCell>
        </tr>
      ))}
    </Table>
  );
}
