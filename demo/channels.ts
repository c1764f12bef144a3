import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { notificationChannels } from '@/db/schema';
import { type Actor, createChannel, updateChannel } from '@/lib/notifications/channels';
import type { TargetPolicy } from '@/lib/notifications/outbound';

/** The demo's notification channels for acme: all three kinds, pointed at the local receivers. */
export const DEMO_CHANNEL_TENANT = 'acme';
export const DEMO_CHANNEL_PATHS = { webhook: '/webhook', slack: '/slack' } as const;
export const DEMO_CHANNEL_EMAIL = 'ops@acme.test';

/** What the demo keeps between starts (in its data folder): the channel ids and the webhook's signing secret. */
export type DemoChannels = {
  webhook: { id: string; secret: string };
  slack: { id: string };
  email: { id: string };
};

const SEED: Actor = { type: 'system', id: 'demo-seed' };

type Kind = keyof DemoChannels;

/**
 * Creates the demo channels that are missing and points the remembered ones at `sinkUrl` (its
 * port may have changed). Seeding again with the returned value changes nothing. The webhook's
 * secret exists only in the value returned here (the product shows it once), so a remembered
 * webhook without its secret is replaced: the old one is disabled, a new one created. `policy`
 * must allow the sink's origin (the demo's NOTIFY_ALLOWED_PRIVATE_ORIGINS, `demoAllowedOrigins`).
 */
export async function seedDemoChannels(
  db: Database,
  sinkUrl: string,
  previous: DemoChannels | undefined,
  policy: TargetPolicy,
): Promise<DemoChannels> {
  const targets: Record<Kind, string> = {
    webhook: `${sinkUrl}${DEMO_CHANNEL_PATHS.webhook}`,
    slack: `${sinkUrl}${DEMO_CHANNEL_PATHS.slack}`,
    email: DEMO_CHANNEL_EMAIL,
  };
  const existing = await db
    .select()
    .from(notificationChannels)
    .where(eq(notificationChannels.tenantId, DEMO_CHANNEL_TENANT));

  const ensure = async (kind: Kind, secret?: string): Promise<{ id: string; secret: string | null } | undefined> => {
    const rememberedId = previous?.[kind].id;
    const row = existing.find((channel) => channel.id === rememberedId && channel.kind === kind);
    if (row && (kind !== 'webhook' || (secret !== undefined && row.secret === secret))) {
      if (row.target !== targets[kind])
        await updateChannel(db, DEMO_CHANNEL_TENANT, row.id, SEED, { target: targets[kind] }, { targets: policy });
      return { id: row.id, secret: row.secret };
    }
    // A channel at our target that we cannot sign for would show every webhook as invalid: retire it.
    for (const stale of existing.filter(
      (channel) => channel.kind === kind && channel.target === targets[kind] && channel.enabled,
    )) {
      if (kind === 'webhook')
        await updateChannel(db, DEMO_CHANNEL_TENANT, stale.id, SEED, { enabled: false }, { targets: policy });
      else return { id: stale.id, secret: null };
    }
    // Every message on its own, as it comes: the receivers page shows each proposal's (Settings → Notifications
    // sets a digest threshold).
    const created = await createChannel(
      db,
      DEMO_CHANNEL_TENANT,
      SEED,
      { kind, target: targets[kind], digestThreshold: 0 },
      { targets: policy },
    );
    return created && { id: created.channel.id, secret: created.secret };
  };

  const webhook = await ensure('webhook', previous?.webhook.secret);
  const slack = await ensure('slack');
  const email = await ensure('email');
  if (!webhook?.secret || !slack || !email)
    throw new Error(`the demo tenant ${DEMO_CHANNEL_TENANT} is missing: seed the demo world first`);
  return { webhook: { id: webhook.id, secret: webhook.secret }, slack: { id: slack.id }, email: { id: email.id } };
}

/** Exactly the demo's own receivers, plus what the person running it listed: nothing else on loopback. */
export function demoAllowedOrigins(ports: { sink: number; mail: number }, listed: readonly string[] = []): string[] {
  return [...new Set([`http://127.0.0.1:${ports.sink}`, `smtp://127.0.0.1:${ports.mail}`, ...listed])];
}
