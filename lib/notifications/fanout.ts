import { and, asc, desc, eq, inArray, isNull, lte, ne } from 'drizzle-orm';
import type { Database } from '@/db';
import {
  agentKeys,
  decisions,
  memberships,
  type NotificationChannel,
  notificationChannels,
  notificationDeliveries,
  outbox,
  type Proposal,
  proposals,
  tenants,
  users,
} from '@/db/schema';
import { NOTIFICATION_EVENTS, type NotificationEvent, OUTBOX_TOPICS, type OutboxTopic } from '@/lib/events/registry';
import { newId } from '@/lib/ids';
import { channelKind } from './kinds/registry';
import { type MessageData, notificationOf, proposalMessage, tenantMessage } from './message';

const reachesMembers = (channel: Pick<NotificationChannel, 'kind'>) => channelKind(channel.kind).reachesMembers;

/** Every outbox topic but the one command dispatch consumes. */
const NOTIFYING_TOPICS = (Object.keys(OUTBOX_TOPICS) as OutboxTopic[]).filter((topic) => topic !== 'command.minted');

export type FanOutOptions = {
  /** Where `/proposals/<id>` links point: APP_URL, else this machine's port. */
  baseUrl: string;
  now?: Date;
  limit?: number;
};

type TenantSettings = { id: string; notifyWithValues: boolean };
type Member = { tenantId: string; userId: string; role: string; email: string };
type Decider = {
  proposalId: string;
  userId: string;
  name: string;
  decision: 'approve' | 'reject';
  createdAt: Date;
  withdrawnAt: Date | null;
};

/** What one batch of outbox rows needs to know about its proposals and people, read in a few queries, not per row. */
type BatchFacts = {
  proposals: Map<string, Proposal>;
  membersOf: (tenantId: string) => Member[];
  decidersOf: (proposalId: string) => Decider[];
  onBehalfOf: Map<string, string | null>;
  /** The name of the person who edited a revision (a member of its tenant). */
  editorOf: (proposal: Proposal) => string | undefined;
};

async function batchFacts(
  tx: Database,
  rows: (typeof outbox.$inferSelect)[],
  tenantIds: string[],
): Promise<BatchFacts> {
  const proposalIds = [...new Set(rows.flatMap((row) => (row.proposalId ? [row.proposalId] : [])))];
  const [proposalRows, members, deciders] = await Promise.all([
    proposalIds.length > 0 ? tx.select().from(proposals).where(inArray(proposals.id, proposalIds)) : [],
    tx
      .select({
        tenantId: memberships.tenantId,
        userId: memberships.userId,
        role: memberships.role,
        email: users.email,
      })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(inArray(memberships.tenantId, tenantIds), ne(memberships.role, 'viewer'))),
    proposalIds.length > 0
      ? tx
          .select({
            proposalId: decisions.proposalId,
            userId: decisions.userId,
            name: users.name,
            decision: decisions.decision,
            createdAt: decisions.createdAt,
            withdrawnAt: decisions.withdrawnAt,
          })
          .from(decisions)
          .innerJoin(users, eq(users.id, decisions.userId))
          .where(inArray(decisions.proposalId, proposalIds))
          .orderBy(desc(decisions.createdAt))
      : [],
  ]);
  const keyIds = [...new Set(proposalRows.flatMap((proposal) => (proposal.agentKeyId ? [proposal.agentKeyId] : [])))];
  const editorIds = [
    ...new Set(proposalRows.flatMap((proposal) => (proposal.initiatedByUserId ? [proposal.initiatedByUserId] : []))),
  ];
  const [keys, editors] = await Promise.all([
    keyIds.length > 0
      ? tx
          .select({ id: agentKeys.id, onBehalfOf: agentKeys.onBehalfOfUserId })
          .from(agentKeys)
          .where(inArray(agentKeys.id, keyIds))
      : [],
    editorIds.length > 0
      ? tx
          .select({ id: users.id, name: users.name, tenantId: memberships.tenantId })
          .from(users)
          .innerJoin(memberships, eq(memberships.userId, users.id))
          .where(and(inArray(users.id, editorIds), inArray(memberships.tenantId, tenantIds)))
      : [],
  ]);
  return {
    proposals: new Map(proposalRows.map((proposal) => [proposal.id, proposal])),
    editorOf: (proposal) =>
      editors.find((editor) => editor.id === proposal.initiatedByUserId && editor.tenantId === proposal.tenantId)?.name,
    membersOf: (tenantId) => members.filter((member) => member.tenantId === tenantId),
    decidersOf: (proposalId) => deciders.filter((decider) => decider.proposalId === proposalId),
    onBehalfOf: new Map(keys.map((key) => [key.id, key.onBehalfOf])),
  };
}

/** Email addresses of the members a message about this proposal is for (docs/design.md §9). */
function audienceOf(
  facts: BatchFacts,
  tenantId: string,
  event: NotificationEvent,
  proposal: Proposal | undefined,
): string[] {
  const audience = NOTIFICATION_EVENTS[event].audience;
  const members = facts.membersOf(tenantId);
  const admins = members.filter((member) => member.role === 'admin');
  if (audience === 'admins' || !proposal) return admins.map((member) => member.email);

  const decidedIds = new Set(facts.decidersOf(proposal.id).map((decider) => decider.userId));
  if (audience === 'involved') {
    const involved = new Set([...decidedIds, ...(proposal.initiatedByUserId ? [proposal.initiatedByUserId] : [])]);
    return members
      .filter((member) => member.role === 'admin' || involved.has(member.userId))
      .map((member) => member.email);
  }
  // Those who can decide it: not whoever the agent acts for, not its editor, not who already approved.
  const onBehalfOf = proposal.agentKeyId ? facts.onBehalfOf.get(proposal.agentKeyId) : undefined;
  const excluded = new Set(
    [...decidedIds, proposal.initiatedByUserId, onBehalfOf].filter((id): id is string => typeof id === 'string'),
  );
  return members.filter((member) => !excluded.has(member.userId)).map((member) => member.email);
}

function messageFor(
  facts: BatchFacts,
  row: typeof outbox.$inferSelect,
  event: NotificationEvent,
  tenant: TenantSettings,
  baseUrl: string,
) {
  const body = (row.body ?? {}) as Record<string, unknown>;
  if (!row.proposalId) return { data: tenantMessage(event, row.tenantId, body, baseUrl), proposal: undefined };
  const proposal = facts.proposals.get(row.proposalId);
  if (proposal?.tenantId !== row.tenantId) return undefined;
  const status =
    typeof body.status === 'string'
      ? body.status
      : event === 'proposal.executed'
        ? row.topic.replace('execution.', '')
        : undefined;
  const approvals = facts
    .decidersOf(proposal.id)
    .filter((decider) => decider.decision === 'approve' && !decider.withdrawnAt).length;
  const data: MessageData = proposalMessage(event, proposal, {
    baseUrl,
    withValues: tenant.notifyWithValues,
    status,
    approvals,
    editedBy: facts.editorOf(proposal),
  });
  if (event === 'proposal.decided' && (status === 'approved' || status === 'rejected')) {
    // The latest decision (deciders are read newest first).
    data.decidedBy = facts.decidersOf(proposal.id)[0]?.name ?? 'policy (automatic)';
  }
  return { data, proposal };
}

/** Outbox events one fan-out claims at most. */
export const FAN_OUT_BATCH = 100;

/**
 * Turns notifying outbox rows into one delivery per subscribed, enabled channel of the tenant, in
 * one transaction that claims the rows (FOR UPDATE SKIP LOCKED) and marks them fanned out: any
 * number of workers may run this and each row becomes its deliveries exactly once. The message's
 * facts are fixed here; sending happens later (`deliverNotifications`), never inside a state change.
 */
export async function fanOutNotifications(
  db: Database,
  options: FanOutOptions,
): Promise<{ events: number; deliveries: number }> {
  const now = options.now ?? new Date();
  return db.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(outbox)
      .where(
        and(
          inArray(outbox.topic, NOTIFYING_TOPICS),
          isNull(outbox.deliveredAt),
          isNull(outbox.deadAt),
          lte(outbox.availableAt, now),
        ),
      )
      .orderBy(asc(outbox.availableAt), asc(outbox.id))
      .limit(options.limit ?? FAN_OUT_BATCH)
      .for('update', { skipLocked: true });
    if (rows.length === 0) return { events: 0, deliveries: 0 };
    const tenantIds = [...new Set(rows.map((row) => row.tenantId))];
    const channels = await tx
      .select()
      .from(notificationChannels)
      .where(and(inArray(notificationChannels.tenantId, tenantIds), eq(notificationChannels.enabled, true)));
    const settings = await tx
      .select({ id: tenants.id, notifyWithValues: tenants.notifyWithValues })
      .from(tenants)
      .where(inArray(tenants.id, tenantIds));

    const facts = await batchFacts(tx, rows, tenantIds);

    const values: (typeof notificationDeliveries.$inferInsert)[] = [];
    for (const row of rows) {
      const event = notificationOf(row);
      const tenant = settings.find((candidate) => candidate.id === row.tenantId);
      const subscribed = event
        ? channels.filter(
            (channel: NotificationChannel) => channel.tenantId === row.tenantId && channel.events.includes(event),
          )
        : [];
      if (!event || !tenant || subscribed.length === 0) continue;
      const message = messageFor(facts, row, event, tenant, options.baseUrl);
      if (!message) continue;
      const recipients = subscribed.some(reachesMembers)
        ? audienceOf(facts, row.tenantId, event, message.proposal)
        : [];
      for (const channel of subscribed) {
        values.push({
          id: newId('msg'),
          tenantId: row.tenantId,
          channelId: channel.id,
          outboxId: row.id,
          event,
          proposalId: row.proposalId,
          data: message.data,
          recipients: reachesMembers(channel) ? recipients : [],
          createdAt: now,
          availableAt: now,
        });
      }
    }
    const inserted =
      values.length > 0
        ? await tx
            .insert(notificationDeliveries)
            .values(values)
            .onConflictDoNothing()
            .returning({ id: notificationDeliveries.id })
        : [];
    const deliveries = inserted.length;
    await tx
      .update(outbox)
      .set({ deliveredAt: now })
      .where(
        inArray(
          outbox.id,
          rows.map((row) => row.id),
        ),
      );
    return { events: rows.length, deliveries };
  });
}
