import type { Database } from '@/db';
import { outbox, type Proposal } from '@/db/schema';
import { type AuditInput, appendAudit } from '@/lib/events/append';
import { newId } from '@/lib/ids';
import type { OutboxTopic } from './registry';

/** A flat JSON object: what an outbox body may carry (ids, statuses, codes; never payload values). */
export type OutboxBody = Record<string, string | number | boolean | null>;

export type StateChange = AuditInput & {
  /** The notification written beside the event (docs/design.md §9), or `false` when nobody is notified. */
  outbox: { topic: OutboxTopic; body: OutboxBody } | false;
};

/**
 * Records a state change: its outbox row (when it has one) and its audit event, in the caller's
 * transaction, so both commit with the change or neither does. The caller makes the change itself
 * (the status UPDATE) in the same transaction, before calling this. The event is linked into the
 * tenant's hash chain just after the commit (lib/events/chainer.ts), so it has no seq yet.
 */
export async function recordStateChange(tx: Database, change: StateChange): Promise<void> {
  const { outbox: notification, ...event } = change;
  // Sent together: one round trip.
  await Promise.all([
    notification
      ? recordNotice(tx, {
          tenantId: event.tenantId,
          proposalId: event.proposalId,
          ...notification,
          at: event.occurredAt,
        })
      : undefined,
    appendAudit(tx, event),
  ]);
}

export type Notice = { tenantId: string; proposalId?: string; topic: OutboxTopic; body: OutboxBody; at?: Date };

/**
 * Writes an outbox row that is no state change of its own (a reminder, an escalation, an exhausted
 * repair chain, a broken audit chain), in the caller's transaction. State changes use
 * `recordStateChange`, which calls this.
 */
export async function recordNotice(tx: Database, notice: Notice): Promise<void> {
  await tx.insert(outbox).values({
    id: newId('obx'),
    tenantId: notice.tenantId,
    topic: notice.topic,
    proposalId: notice.proposalId ?? null,
    body: notice.body,
    createdAt: notice.at,
  });
}

/** The fields of an event that name the proposal it is about, as that proposal stands. */
export function aboutProposal(proposal: Pick<Proposal, 'tenantId' | 'id' | 'payloadHash' | 'contractVersion'>) {
  return {
    tenantId: proposal.tenantId,
    proposalId: proposal.id,
    payloadHash: proposal.payloadHash,
    contractVersion: proposal.contractVersion,
  };
}
