import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '@/db';
import { type NotificationChannel, notificationChannels, notificationDeliveries, tenants } from '@/db/schema';
import { Refusal } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { NOTIFICATION_EVENT_NAMES } from '@/lib/events/registry';
import { newId } from '@/lib/ids';
import { toFieldIssues } from '@/lib/input/field-issues';
import { CHANNEL_KIND_NAMES, CHANNEL_KINDS_IN_WORDS, channelKind } from './kinds/registry';
import { checkTarget, TARGET_NOT_ALLOWED, type TargetPolicy, targetPolicy } from './outbound';

export type Actor = { type: 'user' | 'system'; id: string };

const eventList = z
  .array(
    z.enum(NOTIFICATION_EVENT_NAMES as [string, ...string[]], {
      error: `must be one of ${NOTIFICATION_EVENT_NAMES.join(', ')}`,
    }),
    {
      error: 'must be a list of notification event names',
    },
  )
  .min(1, 'must name at least one event')
  .refine((events) => new Set(events).size === events.length, 'must not repeat an event');

const target = z
  .string()
  .min(1, 'must not be empty')
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => value === value.trim(), 'must not start or end with spaces');

function checkTargetShape(kind: NotificationChannel['kind'], value: string, ctx: z.RefinementCtx) {
  const problem = channelKind(kind).targetProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', path: ['target'], message: problem });
}

/** The most a digest threshold may be: above it, a burst would be a wall of messages anyway. */
export const MAX_DIGEST_THRESHOLD = 100;

/** More than this many messages within a minute go as one digest; 0 turns digests off. */
const digestThreshold = z
  .int({ error: `must be a whole number from 0 (off) to ${MAX_DIGEST_THRESHOLD}` })
  .min(0, `must be a whole number from 0 (off) to ${MAX_DIGEST_THRESHOLD}`)
  .max(MAX_DIGEST_THRESHOLD, `must be a whole number from 0 (off) to ${MAX_DIGEST_THRESHOLD}`);

/** A new channel, from the dashboard or `cli add-channel`; `events` defaults to every event, `digestThreshold` to 5. */
export const channelInput = z
  .strictObject({
    kind: z.enum(CHANNEL_KIND_NAMES, { error: `must be ${CHANNEL_KINDS_IN_WORDS}` }),
    target,
    events: eventList.optional(),
    digestThreshold: digestThreshold.optional(),
  })
  .superRefine((value, ctx) => checkTargetShape(value.kind, value.target, ctx));

export type ChannelInput = z.infer<typeof channelInput>;

/** A change to a channel: its target, its events, its digest threshold, or whether it is enabled. */
export const channelPatch = z
  .strictObject({
    target: target.optional(),
    events: eventList.optional(),
    enabled: z.boolean().optional(),
    digestThreshold: digestThreshold.optional(),
  })
  .refine((value) => Object.keys(value).length > 0, 'must change target, events, digestThreshold or enabled');

export type ChannelPatch = z.infer<typeof channelPatch>;

/** The tenant's notification settings: minutes (0 turns the notice off) and the values opt-in. */
export const notificationSettingsInput = z.strictObject({
  reminderLeadMinutes: z
    .int({ error: 'must be a whole number of minutes' })
    .min(0)
    .max(7 * 24 * 60),
  escalateAfterMinutes: z
    .int({ error: 'must be a whole number of minutes' })
    .min(0)
    .max(7 * 24 * 60),
  notifyWithValues: z.boolean({ error: 'must be true or false' }),
});

export type NotificationSettings = z.infer<typeof notificationSettingsInput>;

/**
 * A channel as lists show it: the secret never leaves, a target that is itself a credential (a Slack URL) only in part.
 */
export function publicChannel(channel: NotificationChannel) {
  const { secret, ...rest } = channel;
  return { ...rest, hasSecret: secret !== null, target: displayTarget(channel) };
}

export type PublicChannel = ReturnType<typeof publicChannel>;

export function displayTarget(channel: Pick<NotificationChannel, 'kind' | 'target'>): string {
  return channelKind(channel.kind).displayTarget?.(channel.target) ?? channel.target;
}

export type SaveOptions = { now?: Date; targets?: TargetPolicy };

/**
 * Refuses a target Countersign connects to (a webhook or Slack URL) that resolves to a non-public
 * address (or any `localhost`), unless its exact origin is allowed. A name that does not resolve yet
 * is saved: every delivery resolves it again and refuses it then, so saving early grants nothing.
 */
async function refuseUnlessAllowed(
  kind: NotificationChannel['kind'],
  target: string,
  policy: TargetPolicy = targetPolicy(),
) {
  if (!channelKind(kind).targetIsOutbound) return;
  const checked = await checkTarget(target, policy);
  if (checked.ok || checked.code !== TARGET_NOT_ALLOWED) return;
  throw new Refusal(TARGET_NOT_ALLOWED, `The target of a ${kind} channel is not allowed: ${checked.message}`);
}

/** Adds a channel (audited). A secret the kind makes (a webhook's signing secret) is returned here and never again. */
export async function createChannel(
  db: Database,
  tenantId: string,
  actor: Actor,
  input: ChannelInput,
  { now = new Date(), targets }: SaveOptions = {},
) {
  await refuseUnlessAllowed(input.kind, input.target, targets);
  const secret = channelKind(input.kind).newSecret?.() ?? null;
  return db.transaction(async (tx) => {
    const [tenant] = await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId));
    if (!tenant) return undefined;
    const [channel] = await tx
      .insert(notificationChannels)
      .values({
        id: newId('chn'),
        tenantId,
        kind: input.kind,
        target: input.target,
        secret,
        events: input.events ?? NOTIFICATION_EVENT_NAMES,
        ...(input.digestThreshold !== undefined ? { digestThreshold: input.digestThreshold } : {}),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordStateChange(tx, {
      tenantId,
      type: 'channel.created',
      actor,
      data: { channel: channel!.id, kind: input.kind },
      occurredAt: now,
      outbox: false,
    });
    return { channel: publicChannel(channel!), secret };
  });
}

/** A new target for a channel of this kind, checked as on creation (the kind never changes). */
async function checkNewTarget(kind: NotificationChannel['kind'], target: string, policy: TargetPolicy | undefined) {
  const checked = channelInput.safeParse({ kind, target });
  if (!checked.success) {
    const message = checked.error.issues[0]?.message ?? 'is not valid';
    throw new Refusal('invalid_target', `The target of a ${kind} channel ${message}.`, {
      issues: toFieldIssues(checked.error, { kind, target }),
    });
  }
  await refuseUnlessAllowed(kind, target, policy);
}

/** Changes a channel of this tenant (audited); undefined when the tenant has no such channel. */
export async function updateChannel(
  db: Database,
  tenantId: string,
  channelId: string,
  actor: Actor,
  patch: ChannelPatch,
  { now = new Date(), targets }: SaveOptions = {},
) {
  const ofTenant = and(eq(notificationChannels.id, channelId), eq(notificationChannels.tenantId, tenantId));
  if (patch.target !== undefined) {
    // Resolving the name happens before the transaction: no row stays locked during a lookup.
    const [existing] = await db.select({ kind: notificationChannels.kind }).from(notificationChannels).where(ofTenant);
    if (!existing) return undefined;
    await checkNewTarget(existing.kind, patch.target, targets);
  }
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ id: notificationChannels.id })
      .from(notificationChannels)
      .where(ofTenant)
      .for('update');
    if (!current) return undefined;
    const [channel] = await tx
      .update(notificationChannels)
      .set({ ...patch, updatedAt: now })
      .where(eq(notificationChannels.id, channelId))
      .returning();
    const changed = Object.keys(patch).sort().join(',');
    await recordStateChange(tx, {
      tenantId,
      type: 'channel.updated',
      actor,
      data: { channel: channelId, changed, enabled: channel!.enabled },
      occurredAt: now,
      outbox: false,
    });
    return { channel: publicChannel(channel!) };
  });
}

export async function listChannels(db: Database, tenantId: string) {
  const rows = await db
    .select()
    .from(notificationChannels)
    .where(eq(notificationChannels.tenantId, tenantId))
    .orderBy(notificationChannels.createdAt, notificationChannels.id);
  return rows.map(publicChannel);
}

/** The channel with its secret, for sending; undefined outside the tenant. */
export async function channelOf(db: Database, tenantId: string, channelId: string) {
  const [row] = await db
    .select()
    .from(notificationChannels)
    .where(and(eq(notificationChannels.id, channelId), eq(notificationChannels.tenantId, tenantId)));
  return row;
}

export async function notificationSettingsOf(
  db: Database,
  tenantId: string,
): Promise<NotificationSettings | undefined> {
  const [row] = await db
    .select({
      reminderLeadMinutes: tenants.reminderLeadMinutes,
      escalateAfterMinutes: tenants.escalateAfterMinutes,
      notifyWithValues: tenants.notifyWithValues,
    })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return row;
}

export async function updateNotificationSettings(
  db: Database,
  tenantId: string,
  actor: Actor,
  settings: NotificationSettings,
  now = new Date(),
) {
  return db.transaction(async (tx) => {
    const [row] = await tx.update(tenants).set(settings).where(eq(tenants.id, tenantId)).returning({ id: tenants.id });
    if (!row) return undefined;
    await recordStateChange(tx, {
      tenantId,
      type: 'tenant.settings_changed',
      actor,
      data: { ...settings },
      occurredAt: now,
      outbox: false,
    });
    return settings;
  });
}

export const RECENT_DELIVERIES = 50;

/** The tenant's last 50 deliveries, newest first, with their channel (or only one channel's, or one delivery). */
export async function recentDeliveries(
  db: Database,
  tenantId: string,
  options: { channelId?: string; deliveryId?: string } = {},
) {
  const rows = await db
    .select({
      delivery: notificationDeliveries,
      channel: { kind: notificationChannels.kind, target: notificationChannels.target },
    })
    .from(notificationDeliveries)
    .innerJoin(notificationChannels, eq(notificationChannels.id, notificationDeliveries.channelId))
    .where(
      and(
        eq(notificationDeliveries.tenantId, tenantId),
        options.channelId ? eq(notificationDeliveries.channelId, options.channelId) : undefined,
        options.deliveryId ? eq(notificationDeliveries.id, options.deliveryId) : undefined,
      ),
    )
    .orderBy(desc(notificationDeliveries.createdAt), desc(notificationDeliveries.id))
    .limit(RECENT_DELIVERIES);
  return rows.map(({ delivery, channel }) => ({
    id: delivery.id,
    channelId: delivery.channelId,
    event: delivery.event,
    proposalId: delivery.proposalId,
    status: delivery.status,
    attempts: delivery.attempts,
    lastError: delivery.lastError,
    lastStatus: delivery.lastStatus,
    latencyMs: delivery.latencyMs,
    createdAt: delivery.createdAt,
    deliveredAt: delivery.deliveredAt,
    deadAt: delivery.deadAt,
    nextAttemptAt: delivery.status === 'pending' ? delivery.availableAt : null,
    digestId: delivery.digestId,
    channelKind: channel.kind,
    channelTarget: displayTarget(channel),
  }));
}

export type DeliveryRow = Awaited<ReturnType<typeof recentDeliveries>>[number];

/** One delivery of this tenant as the list shows it; undefined for another tenant's or an unknown id. */
export async function deliveryOf(db: Database, tenantId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  const [row] = await recentDeliveries(db, tenantId, { deliveryId });
  return row;
}

/**
 * Sends a dead delivery again: it becomes pending, due now, with a fresh attempt budget and the
 * same id (a receiver that did get it after all de-duplicates). Undefined unless this tenant has
 * that delivery and it is dead.
 */
export async function retryDelivery(
  db: Database,
  tenantId: string,
  deliveryId: string,
  actor: Actor,
  now = new Date(),
) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(notificationDeliveries)
      // A message that died with its digest is sent on its own.
      .set({ status: 'pending', attempts: 0, availableAt: now, deadAt: null, digestId: null })
      .where(
        and(
          eq(notificationDeliveries.id, deliveryId),
          eq(notificationDeliveries.tenantId, tenantId),
          eq(notificationDeliveries.status, 'dead'),
        ),
      )
      .returning({
        id: notificationDeliveries.id,
        channelId: notificationDeliveries.channelId,
        event: notificationDeliveries.event,
      });
    if (!row) return undefined;
    await recordStateChange(tx, {
      tenantId,
      type: 'delivery.retried',
      actor,
      data: { delivery: row.id, channel: row.channelId, event: row.event },
      occurredAt: now,
      outbox: false,
    });
    return { id: row.id };
  });
}
