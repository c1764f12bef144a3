import { and, asc, desc, eq, inArray, isNull, lte, ne } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, decisions, memberships, notificationChannels, notificationDeliveries, outbox, proposals, tenants, users, type NotificationChannel, type Proposal } from '@/db/schema';
import { NOTIFICATION_EVENTS, OUTBOX_TOPICS, type NotificationEvent, type OutboxTopic } from '@/lib/events/registry';
import { newId } from '@/lib/ids';
import { notificationOf, proposalMessage, tenantMessage, type MessageData } from './message';

/** Every outbox topic but the one command dispatch consumes. */
const NOTIFYING_TOPICS = (Object.keys(OUTBOX_TOPICS) as OutboxTopic[]).filter((topic) => topic !== 'command.minted');

export type FanOutOptions = {
  /** Where `/proposals/<id>` links point: APP_URL, else this machine's port. */
  baseUrl: string;
  now?: Date;
  limit?: number;
};

type TenantSettings = { id: string; notifyWithValues: boolean };

/** Email addresses of the members a message about this proposal is for (DESIGN.md §9). */
async function audienceOf(tx: Database, tenantId: string, event: NotificationEvent, proposal: Proposal | undefined): Promise<string[]> {
  const audience = NOTIFICATION_EVENTS[event].audience;
  const members = await tx
    .select({ userId: memberships.userId, role: memberships.role, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, tenantId), ne(memberships.role, 'viewer')));
  const admins = members.filter((member) => member.role === 'admin');
  if (audience === 'admins' || !proposal) return admins.map((member) => member.email);

  const decided = await tx.select({ userId: decisions.userId }).from(decisions).where(eq(decisions.proposalId, proposal.id));
  const decidedIds = new Set(decided.map((row) => row.userId));
  if (audience === 'involved') {
    const involved = new Set([...decidedIds, ...(proposal.initiatedByUserId ? [proposal.initiatedByUserId] : [])]);
    return members.filter((member) => member.role === 'admin' || involved.has(member.userId)).map((member) => member.email);
  }
  // Those who can decide it: not whoever the agent acts for, not its editor, not who already approved.
  const [key] = proposal.agentKeyId ? await tx.select({ onBehalfOf: agentKeys.onBehalfOfUserId }).from(agentKeys).where(eq(agentKeys.id, proposal.agentKeyId)) : [];
  const excluded = new Set([...decidedIds, proposal.initiatedByUserId, key?.onBehalfOf].filter((id): id is string => typeof id === 'string'));
  return members.filter((member) => !excluded.has(member.userId)).map((member) => member.email);
}

async function decidedByName(tx: Database, proposalId: string): Promise<string | undefined> {
  const [row] = await tx
    .select({ name: users.name })
    .from(decisions)
    .innerJoin(users, eq(users.id, decisions.userId))
    .where(eq(decisions.proposalId, proposalId))
    .orderBy(desc(decisions.createdAt))
    .limit(1);
  return row?.name;
}

async function messageFor(tx: Database, row: typeof outbox.$inferSelect, event: NotificationEvent, tenant: TenantSettings, baseUrl: string) {
  const body = (row.body ?? {}) as Record<string, unknown>;
  if (!row.proposalId) return { data: tenantMessage(event, row.tenantId, body, baseUrl), proposal: undefined };
  const [proposal] = await tx.select().from(proposals).where(and(eq(proposals.id, row.proposalId), eq(proposals.tenantId, row.tenantId)));
  if (!proposal) return undefined;
  const status = typeof body.status === 'string' ? body.status : event === 'proposal.executed' ? row.topic.replace('execution.', '') : undefined;
  const data: MessageData = proposalMessage(event, proposal, { baseUrl, withValues: tenant.notifyWithValues, status });
  if (event === 'proposal.decided' && (status === 'approved' || status === 'rejected')) {
    const name = await decidedByName(tx, proposal.id);
    data.decidedBy = name ?? 'policy (automatic)';
  }
  return { data, proposal };
}

/**
 * Turns notifying outbox rows into one delivery per subscribed, enabled channel of the tenant, in
 * one transaction that claims the rows (FOR UPDATE SKIP LOCKED) and marks them fanned out: any
 * number of workers may run this and each row becomes its deliveries exactly once. The message's
 * facts are fixed here; sending happens later (`deliverNotifications`), never inside a state change.
 */
export async function fanOutNotifications(db: Database, options: FanOutOptions): Promise<{ events: number; deliveries: number }> {
  const now = options.now ?? new Date();
  return db.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(outbox)
      .where(and(inArray(outbox.topic, NOTIFYING_TOPICS), isNull(outbox.deliveredAt), isNull(outbox.deadAt), lte(outbox.availableAt, now)))
      .orderBy(asc(outbox.availableAt), asc(outbox.id))
      .limit(options.limit ?? 100)
      .for('update', { skipLocked: true });
    if (rows.length === 0) return { events: 0, deliveries: 0 };
    const tenantIds = [...new Set(rows.map((row) => row.tenantId))];
    const channels = await tx.select().from(notificationChannels).where(and(inArray(notificationChannels.tenantId, tenantIds), eq(notificationChannels.enabled, true)));
    const settings = await tx.select({ id: tenants.id, notifyWithValues: tenants.notifyWithValues }).from(tenants).where(inArray(tenants.id, tenantIds));

    let deliveries = 0;
    for (const row of rows) {
      const event = notificationOf(row);
      const tenant = settings.find((candidate) => candidate.id === row.tenantId);
      const subscribed = event ? channels.filter((channel: NotificationChannel) => channel.tenantId === row.tenantId && channel.events.includes(event)) : [];
      if (!event || !tenant || subscribed.length === 0) continue;
      const message = await messageFor(tx, row, event, tenant, options.baseUrl);
      if (!message) continue;
      const recipients = subscribed.some((channel) => channel.kind === 'email') ? await audienceOf(tx, row.tenantId, event, message.proposal) : [];
      const inserted = await tx
        .insert(notificationDeliveries)
        .values(
          subscribed.map((channel) => ({
            id: newId('msg'),
            tenantId: row.tenantId,
            channelId: channel.id,
            outboxId: row.id,
            event,
            proposalId: row.proposalId,
            data: message.data,
            recipients: channel.kind === 'email' ? recipients : [],
            createdAt: now,
            availableAt: now,
          })),
        )
        .onConflictDoNothing()
        .returning({ id: notificationDeliveries.id });
      deliveries += inserted.length;
    }
    await tx
      .update(outbox)
      .set({ deliveredAt: now })
      .where(inArray(outbox.id, rows.map((row) => row.id)));
    return { events: rows.length, deliveries };
  });
}
