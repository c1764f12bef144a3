import { asc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, notificationChannels } from '@/db/schema';
import { chainAllPending } from '@/lib/events/chainer';
import { setupTestDatabase } from '@/test/db';
import { type DemoChannels, seedDemoChannels } from './channels';
import { seedDemo } from './seed';

const t = setupTestDatabase();
const SINK = 'http://127.0.0.1:4030';
const POLICY = { allowedPrivateOrigins: ['http://127.0.0.1:4030', 'http://127.0.0.1:5030'] };

async function state() {
  await chainAllPending(t.db);
  return {
    channels: await t.db.select().from(notificationChannels).orderBy(asc(notificationChannels.id)),
    audit: await t.db.select().from(auditEvents).orderBy(asc(auditEvents.tenantId), asc(auditEvents.seq)),
  };
}

let first: DemoChannels;

beforeAll(async () => {
  await seedDemo(t.db);
  first = await seedDemoChannels(t.db, SINK, undefined, POLICY);
});

describe('seedDemoChannels', () => {
  it('gives acme a signed webhook and a Slack channel at the sink, and email to ops@acme.test, for every event', async () => {
    const rows = await t.db.select().from(notificationChannels);
    expect(
      rows
        .map(({ id, tenantId, kind, target, enabled }) => ({ id, tenantId, kind, target, enabled }))
        .sort((a, b) => a.kind.localeCompare(b.kind)),
    ).toEqual([
      { id: first.email.id, tenantId: 'acme', kind: 'email', target: 'ops@acme.test', enabled: true },
      { id: first.slack.id, tenantId: 'acme', kind: 'slack', target: `${SINK}/slack`, enabled: true },
      { id: first.webhook.id, tenantId: 'acme', kind: 'webhook', target: `${SINK}/webhook`, enabled: true },
    ]);
    expect(first.webhook.secret).toMatch(/^whsec_/);
    expect(rows.find((row) => row.kind === 'webhook')?.secret).toBe(first.webhook.secret);
    for (const row of rows) expect(row.events).toContain('proposal.waiting');
    await chainAllPending(t.db);
    const audit = await t.db.select().from(auditEvents).where(eq(auditEvents.type, 'channel.created'));
    expect(audit.map((event) => event.actorId)).toEqual(['demo-seed', 'demo-seed', 'demo-seed']);
  });

  it('changes nothing when run again with what it returned', async () => {
    const before = await state();
    expect(await seedDemoChannels(t.db, SINK, first, POLICY)).toEqual(first);
    expect(await state()).toEqual(before);
  });

  it('points the same channels at a sink on another port', async () => {
    const moved = await seedDemoChannels(t.db, 'http://127.0.0.1:5030', first, POLICY);
    expect(moved).toEqual(first);
    const [webhook] = await t.db
      .select()
      .from(notificationChannels)
      .where(eq(notificationChannels.id, first.webhook.id));
    expect(webhook?.target).toBe('http://127.0.0.1:5030/webhook');
    expect(await seedDemoChannels(t.db, SINK, first, POLICY)).toEqual(first);
  });

  it('without the remembered secret, disables the webhook it cannot sign for and creates a new one; keeps slack and email', async () => {
    const again = await seedDemoChannels(t.db, SINK, undefined, POLICY);
    expect(again.webhook.id).not.toBe(first.webhook.id);
    expect(again.webhook.secret).not.toBe(first.webhook.secret);
    expect({ slack: again.slack, email: again.email }).toEqual({ slack: first.slack, email: first.email });
    const webhooks = await t.db.select().from(notificationChannels).where(eq(notificationChannels.kind, 'webhook'));
    expect(webhooks.filter((row) => row.enabled).map((row) => row.id)).toEqual([again.webhook.id]);
  });
});
