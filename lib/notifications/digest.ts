import { and, asc, eq, gt, inArray, lte, ne, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import {
  type NotificationChannel,
  type NotificationDelivery,
  notificationChannels,
  notificationDeliveries,
} from '@/db/schema';
import type { DeliveryEvent } from '@/lib/events/registry';
import { newId } from '@/lib/ids';
import type { MessageData } from './message';
import type { RenderInput } from './render';

/**
 * Digests (docs/notifications.md, "Digests"): when more than a channel's `digestThreshold` messages
 * arrive for it within a minute, the first that many go at once and the rest of that minute wait
 * in one digest, sent when the minute is up as one message listing them. Decided at delivery time,
 * from the deliveries' own creation times, so the outcome depends on the clock the worker is given
 * and nothing else (no timers, no sleeps).
 */
export const DIGEST_WINDOW_MS = 60_000;
export const DIGEST_EVENT: DeliveryEvent = 'notification.digest';
const TEST_EVENT: DeliveryEvent = 'channel.test';

type Claim = { delivery: NotificationDelivery; channel: NotificationChannel };

/**
 * A message that counts towards a burst: a first attempt of a fanned-out message (not a test, not a digest, not a
 * retry).
 */
const counts = ({ delivery }: Claim) =>
  delivery.attempts === 1 && delivery.event !== TEST_EVENT && delivery.event !== DIGEST_EVENT;

/** Messages made at one instant are ordered by the outbox row they tell of: every channel holds back the same ones. */
const order = (row: Pick<NotificationDelivery, 'id' | 'outboxId'>) => row.outboxId ?? row.id;

type Arrival = Pick<NotificationDelivery, 'id' | 'outboxId' | 'channelId' | 'createdAt'>;

/**
 * How many messages arrived for the channel in the minute up to and including this one (by
 * creation time, then outbox row): `window` holds the channel's messages around the claims.
 */
function arrivedBy(window: Arrival[], delivery: NotificationDelivery): number {
  const at = delivery.createdAt.getTime();
  return window.filter(
    (row) =>
      row.channelId === delivery.channelId &&
      row.createdAt.getTime() > at - DIGEST_WINDOW_MS &&
      (row.createdAt.getTime() < at || (row.createdAt.getTime() === at && order(row) <= order(delivery))),
  ).length;
}

/**
 * Takes the claimed deliveries past their channel's threshold out of this run: each joins its
 * channel's open digest (made, due a minute after the first it holds, if there is none), its
 * claimed attempt given back. Returns the claims to send now. Each channel's digest is found or
 * made under a lock on the channel's row, so two workers never open two for one burst.
 */
export async function holdForDigests(db: Database, claims: Claim[], now: Date): Promise<Claim[]> {
  const candidates = claims.filter((claim) => counts(claim) && claim.channel.digestThreshold > 0);
  if (candidates.length === 0) return claims;
  const times = candidates.map(({ delivery }) => delivery.createdAt.getTime());
  const window = await db
    .select({
      id: notificationDeliveries.id,
      outboxId: notificationDeliveries.outboxId,
      channelId: notificationDeliveries.channelId,
      createdAt: notificationDeliveries.createdAt,
    })
    .from(notificationDeliveries)
    .where(
      and(
        inArray(notificationDeliveries.channelId, [...new Set(candidates.map(({ channel }) => channel.id))]),
        gt(notificationDeliveries.createdAt, new Date(Math.min(...times) - DIGEST_WINDOW_MS)),
        lte(notificationDeliveries.createdAt, new Date(Math.max(...times))),
        ne(notificationDeliveries.event, TEST_EVENT),
        ne(notificationDeliveries.event, DIGEST_EVENT),
      ),
    );
  const held = candidates.filter(({ delivery, channel }) => arrivedBy(window, delivery) > channel.digestThreshold);
  if (held.length === 0) return claims;
  for (const channelId of new Set(held.map(({ channel }) => channel.id))) {
    await joinDigest(
      db,
      held.filter(({ channel }) => channel.id === channelId),
      now,
    );
  }
  const heldIds = new Set(held.map(({ delivery }) => delivery.id));
  return claims.filter(({ delivery }) => !heldIds.has(delivery.id));
}

async function joinDigest(db: Database, held: Claim[], now: Date): Promise<void> {
  const { channel } = held[0]!;
  const first = held.reduce((a, b) => (a.delivery.createdAt <= b.delivery.createdAt ? a : b)).delivery;
  await db.transaction(async (tx) => {
    await tx
      .select({ id: notificationChannels.id })
      .from(notificationChannels)
      .where(eq(notificationChannels.id, channel.id))
      .for('update');
    const [open] = await tx
      .select({ id: notificationDeliveries.id, availableAt: notificationDeliveries.availableAt })
      .from(notificationDeliveries)
      .where(
        and(
          eq(notificationDeliveries.channelId, channel.id),
          eq(notificationDeliveries.event, DIGEST_EVENT),
          eq(notificationDeliveries.status, 'pending'),
          eq(notificationDeliveries.attempts, 0),
          gt(notificationDeliveries.availableAt, now),
        ),
      )
      .limit(1);
    const digest =
      open ??
      (
        await tx
          .insert(notificationDeliveries)
          .values({
            id: newId('msg'),
            tenantId: channel.tenantId,
            channelId: channel.id,
            event: DIGEST_EVENT,
            data: { event: DIGEST_EVENT, headline: 'Digest', tenant: channel.tenantId },
            createdAt: now,
            availableAt: new Date(first.createdAt.getTime() + DIGEST_WINDOW_MS),
          })
          .returning({ id: notificationDeliveries.id, availableAt: notificationDeliveries.availableAt })
      )[0]!;
    // The claimed attempt is given back: the message waits, visible as pending until the digest goes.
    await tx
      .update(notificationDeliveries)
      .set({
        digestId: digest.id,
        attempts: sql`${notificationDeliveries.attempts} - 1`,
        availableAt: digest.availableAt,
      })
      .where(
        inArray(
          notificationDeliveries.id,
          held.map(({ delivery }) => delivery.id),
        ),
      );
  });
}

/** The messages a digest holds, oldest first. */
export function digestItems(db: Database, digestId: string) {
  return db
    .select()
    .from(notificationDeliveries)
    .where(eq(notificationDeliveries.digestId, digestId))
    .orderBy(
      asc(notificationDeliveries.createdAt),
      asc(sql`coalesce(${notificationDeliveries.outboxId}, ${notificationDeliveries.id})`),
    );
}

/**
 * What a digest says, from the messages it holds: their count and, per message, its own rendering
 * input (each kind lists them with their one-line facts and link). The link of the digest itself is
 * the queue, on the same origin as the messages' links.
 */
export function digestInput(
  digest: NotificationDelivery,
  items: NotificationDelivery[],
  now: Date,
): RenderInput & { recipients: string[] } {
  const first = items[0]?.data as MessageData | undefined;
  const origin = typeof first?.url === 'string' ? new URL(first.url).origin : undefined;
  const count = items.length;
  const data: MessageData = {
    event: DIGEST_EVENT,
    headline: `${count} notification${count === 1 ? '' : 's'} in one minute`,
    tenant: digest.tenantId,
    count,
    summary: `More than this channel's threshold arrived within a minute; here they are in one message.`,
    url: origin ? `${origin}/` : null,
  };
  return {
    id: digest.id,
    event: DIGEST_EVENT,
    data,
    createdAt: digest.createdAt,
    now,
    recipients: [...new Set(items.flatMap((item) => item.recipients))],
    items: items.map((item) => ({
      id: item.id,
      event: item.event,
      data: item.data as MessageData,
      createdAt: item.createdAt,
      now,
    })),
  };
}

/** A digest that ended (delivered or dead) ends the messages it holds the same way. */
export async function settleDigestItems(
  db: Database,
  digestId: string,
  status: 'delivered' | 'dead',
  at: Date,
): Promise<void> {
  await db
    .update(notificationDeliveries)
    .set(status === 'delivered' ? { status, deliveredAt: at } : { status, deadAt: at, lastError: 'digest_dead' })
    .where(eq(notificationDeliveries.digestId, digestId));
}
