import { and, asc, eq, isNull, lte, type SQL } from 'drizzle-orm';
import type { Database } from '@/db';
import {
  type NotificationChannel,
  type NotificationDelivery,
  notificationChannels,
  notificationDeliveries,
} from '@/db/schema';
import { isProposalId, newId } from '@/lib/ids';
import { SPAN } from '@/lib/telemetry/attributes';
import { countDeliveryFailure } from '@/lib/telemetry/metrics';
import { withSpan } from '@/lib/telemetry/trace';
import { DIGEST_EVENT, digestInput, digestItems, holdForDigests, settleDigestItems } from './digest';
import { channelKind } from './kinds/registry';
import type { MessageData } from './message';
import type { TargetPolicy } from './outbound';
import type { MailSettings, SendResult } from './send';

/** Waits before retry n (after n failed attempts), before jitter: 5 s, 30 s, 2 min, 10 min, 30 min, 2 h, 5 h. */
export const DELIVERY_BACKOFF_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 7_200_000, 18_000_000] as const;
/** After this many failed attempts a delivery is dead: shown in Settings, retried only by a person. */
export const MAX_DELIVERY_ATTEMPTS = DELIVERY_BACKOFF_MS.length + 1;
/** How long one attempt may take before it counts as failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A claimed delivery is leased this long (longer than an attempt): no other worker sends it meanwhile. */
const LEASE_MS = 60_000;

/** The wait after `attempts` failed attempts, with ±20 % jitter so a receiver's outage does not end in a stampede. */
export function deliveryBackoffMs(attempts: number, random: () => number = Math.random): number {
  const base = DELIVERY_BACKOFF_MS[Math.min(Math.max(attempts, 1), DELIVERY_BACKOFF_MS.length) - 1]!;
  return Math.round(base * (0.8 + 0.4 * random()));
}

export type DeliveryOptions = {
  mail: MailSettings;
  /** Which targets may be reached (`targetPolicy()` from the settings); every attempt checks its target again. */
  targets: TargetPolicy;
  now?: Date;
  limit?: number;
  timeoutMs?: number;
  random?: () => number;
};

/** `held`: claimed messages past their channel's threshold, put into its digest instead of sent. */
export type DeliveryResult = { claimed: number; delivered: number; retrying: number; dead: number; held: number };

type Claim = { delivery: NotificationDelivery; channel: NotificationChannel };

/** Claims due pending deliveries (SKIP LOCKED), counts the attempt and leases them, in one short transaction. */
async function claim(db: Database, where: SQL | undefined, now: Date, limit: number): Promise<Claim[]> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .select({ delivery: notificationDeliveries, channel: notificationChannels })
      .from(notificationDeliveries)
      .innerJoin(notificationChannels, eq(notificationChannels.id, notificationDeliveries.channelId))
      // A message waiting in a digest is sent with it, never on its own.
      .where(
        and(
          eq(notificationDeliveries.status, 'pending'),
          lte(notificationDeliveries.availableAt, now),
          isNull(notificationDeliveries.digestId),
          where,
        ),
      )
      .orderBy(asc(notificationDeliveries.availableAt), asc(notificationDeliveries.id))
      .limit(limit)
      .for('update', { of: notificationDeliveries, skipLocked: true });
    const lease = new Date(now.getTime() + LEASE_MS);
    for (const row of rows) {
      row.delivery.attempts += 1;
      await tx
        .update(notificationDeliveries)
        .set({ attempts: row.delivery.attempts, availableAt: lease })
        .where(eq(notificationDeliveries.id, row.delivery.id));
    }
    return rows;
  });
}

/** Records one attempt's result, unless another worker has claimed the delivery since (its lease ran out). */
type Outcome = 'delivered' | 'retrying' | 'dead';

async function settle(
  db: Database,
  { delivery }: Claim,
  result: SendResult,
  latencyMs: number,
  at: Date,
  random: () => number,
): Promise<Outcome> {
  const mine = and(
    eq(notificationDeliveries.id, delivery.id),
    eq(notificationDeliveries.attempts, delivery.attempts),
    eq(notificationDeliveries.status, 'pending'),
  );
  // A refused target was never contacted: nothing about it (status, timing) is recorded.
  const seen =
    result.ok || !result.refused
      ? { latencyMs, lastStatus: result.status ?? null }
      : { latencyMs: null, lastStatus: null };
  if (result.ok) {
    await db
      .update(notificationDeliveries)
      .set({ ...seen, status: 'delivered', deliveredAt: at, lastError: null })
      .where(mine);
    return 'delivered';
  }
  if (result.final || delivery.attempts >= MAX_DELIVERY_ATTEMPTS) {
    await db
      .update(notificationDeliveries)
      .set({ ...seen, status: 'dead', deadAt: at, lastError: result.error })
      .where(mine);
    return 'dead';
  }
  const availableAt = new Date(at.getTime() + deliveryBackoffMs(delivery.attempts, random));
  await db
    .update(notificationDeliveries)
    .set({ ...seen, availableAt, lastError: result.error })
    .where(mine);
  return 'retrying';
}

/** One attempt as a span (outcome: delivered, retrying or dead); each failed attempt is counted by channel kind. */
function attempt(db: Database, claimed: Claim, options: DeliveryOptions, fixedNow: Date | undefined): Promise<Outcome> {
  const { delivery, channel } = claimed;
  const data = (delivery.data ?? {}) as MessageData;
  const facts = {
    tenantId: delivery.tenantId,
    ...(typeof data.proposalId === 'string' && isProposalId(data.proposalId) ? { proposalId: data.proposalId } : {}),
    ...(typeof data.action === 'string' ? { action: data.action } : {}),
  };
  return withSpan(SPAN.notificationDelivery, facts, async (span) => {
    const outcome = await attemptOnce(db, claimed, options, fixedNow);
    span.note({ outcome });
    if (outcome !== 'delivered') countDeliveryFailure(channel.kind);
    return outcome;
  });
}

async function attemptOnce(
  db: Database,
  claimed: Claim,
  options: DeliveryOptions,
  fixedNow: Date | undefined,
): Promise<Outcome> {
  const { delivery, channel } = claimed;
  const random = options.random ?? Math.random;
  const sentAt = fixedNow ?? new Date();
  const digest = delivery.event === DIGEST_EVENT;
  const ended = async (outcome: Outcome) => {
    if (digest && outcome !== 'retrying') await settleDigestItems(db, delivery.id, outcome, fixedNow ?? new Date());
    return outcome;
  };
  if (!channel.enabled)
    return ended(await settle(db, claimed, { ok: false, error: 'channel_disabled', final: true }, 0, sentAt, random));
  const message = digest
    ? digestInput(delivery, await digestItems(db, delivery.id), sentAt)
    : {
        id: delivery.id,
        event: delivery.event,
        data: delivery.data as MessageData,
        createdAt: delivery.createdAt,
        now: sentAt,
        recipients: delivery.recipients,
      };
  const started = performance.now();
  const result = await channelKind(channel.kind).send(channel, message, {
    mail: options.mail,
    targets: options.targets,
    timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
  });
  const latencyMs = Math.round(performance.now() - started);
  // The answer's own time, so a slow attempt cannot make its backoff already past.
  return ended(await settle(db, claimed, result, latencyMs, fixedNow ?? new Date(), random));
}

/** Deliveries one run claims at most. */
export const DELIVERY_BATCH = 20;

/**
 * Sends due deliveries (docs/design.md §9): at-least-once, each claimed by one worker at a time (SKIP
 * LOCKED plus a lease that outlives an attempt, so a restarted worker does not send what another is
 * sending), a timeout per attempt, exponential backoff with jitter, dead after the last attempt.
 * Runs outside every state change: a slow or failing receiver delays nothing but its own message.
 */
export async function deliverNotifications(db: Database, options: DeliveryOptions): Promise<DeliveryResult> {
  const now = options.now ?? new Date();
  const claims = await claim(db, undefined, now, options.limit ?? DELIVERY_BATCH);
  const sending = await holdForDigests(db, claims, now);
  const result: DeliveryResult = {
    claimed: claims.length,
    delivered: 0,
    retrying: 0,
    dead: 0,
    held: claims.length - sending.length,
  };
  const outcomes = await Promise.all(sending.map((claimed) => attempt(db, claimed, options, options.now)));
  for (const outcome of outcomes) result[outcome] += 1;
  return result;
}

/**
 * "Send a test" from Settings: a `channel.test` delivery to one channel, attempted now; a failure
 * is retried by the worker like any delivery. Undefined when the tenant has no such channel.
 */
export async function sendTestDelivery(
  db: Database,
  tenantId: string,
  channelId: string,
  options: DeliveryOptions & { baseUrl: string },
) {
  const now = options.now ?? new Date();
  const [channel] = await db
    .select()
    .from(notificationChannels)
    .where(and(eq(notificationChannels.id, channelId), eq(notificationChannels.tenantId, tenantId)));
  if (!channel) return undefined;
  const id = newId('msg');
  const data: MessageData = {
    event: 'channel.test',
    headline: 'Test notification',
    tenant: tenantId,
    summary: 'This channel is connected: Countersign notifications will arrive here.',
    url: new URL('/settings/notifications', options.baseUrl).toString(),
  };
  await db
    .insert(notificationDeliveries)
    .values({ id, tenantId, channelId, event: 'channel.test', data, createdAt: now, availableAt: now });
  const [claimed] = await claim(db, eq(notificationDeliveries.id, id), now, 1);
  if (claimed) await attempt(db, claimed, options, options.now);
  const [row] = await db.select().from(notificationDeliveries).where(eq(notificationDeliveries.id, id));
  return row;
}
