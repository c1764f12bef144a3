import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type NotificationDelivery, notificationDeliveries } from '@/db/schema';
import { readJsonRequest } from '@/lib/http/body';
import { setupTestDatabase } from '@/test/db';
import { setupReceivers } from '@/test/fixtures/notifications';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { type ChannelInput, createChannel, listChannels, updateChannel } from './channels';
import { deliverNotifications } from './deliver';
import { DIGEST_EVENT, DIGEST_WINDOW_MS } from './digest';
import { fanOutNotifications } from './fanout';
import type { MessageData } from './message';
import { factLine, unlinked } from './render';
import { channelChangeRequest, channelCreateRequest } from './requests';

/**
 * Digests on an injected clock: every run of the delivery job is given its `now`, and deliveries
 * are made at a given instant by fanning out then, so the window is exact and nothing sleeps.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);
const BASE = 'https://countersign.example';
let sequence = 0;
const receivers = setupReceivers(() => t.db);
const { admin: ADMIN, opened, options } = receivers;

async function channel(input: ChannelInput) {
  const created = await createChannel(
    t.db,
    'acme',
    ADMIN,
    { events: ['proposal.waiting'], ...input },
    { targets: options().targets },
  );
  opened.push(created!.channel.id);
  return created!.channel;
}

/** `count` proposals waiting, their messages made at `at`. */
async function arrive(count: number, at: Date) {
  for (let i = 0; i < count; i++) {
    await submitAs(
      t.db,
      systems.client,
      seeded.acme,
      {
        requestId: `req_digest_${++sequence}`,
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku: 'filter-blue', quantity: 1 },
      },
      { now: at },
    );
  }
  await fanOutNotifications(t.db, { baseUrl: BASE, now: at });
}

const deliver = (at: Date) => deliverNotifications(t.db, { ...options(), now: at });
/**
 * A test's first instant: a little ahead of the wall clock, so the outbox rows its proposals write
 * (stamped by the database's clock) are due when the injected clock fans them out.
 */
const begin = () => new Date(Date.now() + 60_000);
const after = (start: Date, ms: number) => new Date(start.getTime() + ms);
const rowsOf = (channelId: string): Promise<NotificationDelivery[]> =>
  t.db
    .select()
    .from(notificationDeliveries)
    .where(eq(notificationDeliveries.channelId, channelId))
    .orderBy(notificationDeliveries.createdAt, notificationDeliveries.id);
type Body = {
  type: string;
  data: Record<string, unknown>;
  items?: { id: string; type: string; data: MessageData; facts: { label: string; value: string }[] }[];
};
const bodies = (path: string) => receivers.sink.received(path).map((request) => JSON.parse(request.body) as Body);

describe('digests', () => {
  it('N messages within a minute go one by one (N is the threshold)', async () => {
    const hook = await channel({ kind: 'webhook', target: `${receivers.sink.url}/n`, digestThreshold: 3 });
    const start = begin();
    await arrive(3, start);
    expect(await deliver(start)).toMatchObject({ claimed: 3, delivered: 3, held: 0 });
    expect(bodies('/n').map((body) => body.type)).toEqual(['proposal.waiting', 'proposal.waiting', 'proposal.waiting']);
    expect((await rowsOf(hook.id)).map((row) => row.event)).not.toContain(DIGEST_EVENT);
  });

  it('N+1 within a minute: N go at once, the rest of that minute wait in one digest sent when the minute is up', async () => {
    const hook = await channel({ kind: 'webhook', target: `${receivers.sink.url}/n1`, digestThreshold: 3 });
    const start = begin();
    await arrive(3, start);
    expect(await deliver(start)).toMatchObject({ delivered: 3, held: 0 });
    await arrive(1, after(start, 10_000));
    expect(await deliver(after(start, 10_000))).toMatchObject({ claimed: 1, delivered: 0, held: 1 });
    await arrive(1, after(start, 20_000));
    expect(await deliver(after(start, 20_000))).toMatchObject({ claimed: 1, delivered: 0, held: 1 });
    // The digest is due a minute after the first message it holds, and not before.
    expect(await deliver(after(start, 10_000 + DIGEST_WINDOW_MS - 1))).toMatchObject({ claimed: 0 });
    expect(bodies('/n1')).toHaveLength(3);
    expect(await deliver(after(start, 10_000 + DIGEST_WINDOW_MS))).toMatchObject({ claimed: 1, delivered: 1, held: 0 });

    const received = bodies('/n1');
    expect(received).toHaveLength(4);
    const digest = received[3]!;
    expect(digest).toMatchObject({
      type: DIGEST_EVENT,
      data: { count: 2, headline: '2 notifications in one minute', url: `${BASE}/` },
    });
    const rows = await rowsOf(hook.id);
    const held = rows.filter((row) => row.digestId !== null);
    expect(held).toHaveLength(2);
    expect(digest.items!.map((item) => item.id)).toEqual(held.map((row) => row.id));
    for (const item of digest.items!) {
      expect(item).toMatchObject({
        type: 'proposal.waiting',
        data: { url: expect.stringMatching(new RegExp(`^${BASE}/proposals/prp_`)) },
      });
      expect(item.facts).toContainEqual({ label: 'Approvals', value: '0 of 1' });
    }
    // The messages it held are delivered with it; each was attempted once, as the digest.
    const sent = rows.find((row) => row.event === DIGEST_EVENT)!;
    expect(sent).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(held.every((row) => row.status === 'delivered' && row.attempts === 0 && row.digestId === sent.id)).toBe(
      true,
    );
    expect(await deliver(after(start, 2 * DIGEST_WINDOW_MS))).toMatchObject({ claimed: 0 });
  });

  it('outside the window each goes on its own: a minute later counts afresh', async () => {
    await channel({ kind: 'webhook', target: `${receivers.sink.url}/outside`, digestThreshold: 3 });
    const start = begin();
    await arrive(3, start);
    expect(await deliver(start)).toMatchObject({ delivered: 3, held: 0 });
    // Exactly a minute later the first three are outside the window (it is the minute up to and including now).
    await arrive(3, after(start, DIGEST_WINDOW_MS));
    expect(await deliver(after(start, DIGEST_WINDOW_MS))).toMatchObject({ delivered: 3, held: 0 });
    expect(bodies('/outside').map((body) => body.type)).not.toContain(DIGEST_EVENT);
  });

  it('threshold 0 sends every message on its own', async () => {
    await channel({ kind: 'webhook', target: `${receivers.sink.url}/off`, digestThreshold: 0 });
    const start = begin();
    await arrive(7, start);
    expect(await deliver(start)).toMatchObject({ delivered: 7, held: 0 });
  });

  it('webhook, Slack and email list the same messages: count, one line of facts each, and the link', async () => {
    const hook = await channel({ kind: 'webhook', target: `${receivers.sink.url}/dw`, digestThreshold: 1 });
    await channel({ kind: 'slack', target: `${receivers.sink.url}/ds`, digestThreshold: 1 });
    await channel({ kind: 'email', target: 'digest@acme.test', digestThreshold: 1 });
    receivers.mail.clear();
    const start = begin();
    await arrive(3, start);
    expect(await deliver(start)).toMatchObject({ delivered: 3, held: 6 });
    expect(await deliver(after(start, DIGEST_WINDOW_MS))).toMatchObject({ delivered: 3 });

    const digestAt = after(start, DIGEST_WINDOW_MS);
    // Made at one instant, messages are listed in the order of the outbox rows they tell of.
    const heldBy = async (channelId: string) =>
      (await rowsOf(channelId))
        .filter((row) => row.digestId !== null)
        .sort((a, b) => (a.outboxId! < b.outboxId! ? -1 : 1));
    const held = await heldBy(hook.id);
    expect(held).toHaveLength(2);
    // Every channel holds back the same messages (the later ones of the burst).
    for (const other of opened.slice(1))
      expect((await heldBy(other)).map((row) => row.outboxId)).toEqual(held.map((row) => row.outboxId));
    const lines = held.map((row) => ({
      line: factLine({ id: row.id, event: row.event, data: row.data, createdAt: row.createdAt, now: digestAt }),
      url: String(row.data.url),
    }));
    expect(lines[0]!.line).toMatch(
      /^Waiting for a decision: Hold stock — Needs you yes: 1 more approval needed · Resource sku filter-blue · Risk \w+ · .*Approvals 0 of 1 · Time left 23 h 59 min$/,
    );

    const webhook = bodies('/dw').find((body) => body.type === DIGEST_EVENT)!;
    expect(webhook.data.count).toBe(2);
    expect(webhook.items!.map((item) => item.data.url)).toEqual(lines.map(({ url }) => url));

    const slack = JSON.parse(receivers.sink.received('/ds').at(-1)!.body) as {
      blocks: { type: string; text?: { text: string }; accessory?: { url: string } }[];
    };
    expect(slack.blocks[0]!.text!.text).toBe('2 notifications in one minute');
    const sections = slack.blocks.filter((block) => block.accessory);
    expect(sections.map((block) => [block.text!.text, block.accessory!.url])).toEqual(
      lines.map(({ line, url }) => [unlinked(line), url]),
    );
    expect(slack.blocks.length).toBeLessThanOrEqual(50);

    const letter = receivers.mail
      .received()
      .find((each) => each.subject === 'Needs you: [Countersign] 2 notifications in one minute')!;
    for (const { line, url } of lines) {
      expect(letter.text).toContain(`- ${line}\n  Review: ${url}`);
      expect(letter.html).toContain(`href="${url}"`);
    }
    expect(letter.text).toContain(`Queue: ${BASE}/`);
  });
});

describe('the digest threshold setting', () => {
  const request = (body: unknown) =>
    new Request('http://countersign.test/api/v1/admin/notifications/channels/chn_x', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it.each([-1, 101, 1.5, '5', null, true])(
    '%j is refused with a 422 naming digestThreshold, on create and on change',
    async (bad) => {
      const refusal = {
        status: 422,
        code: 'invalid_channel',
        details: { issues: [expect.objectContaining({ field: 'digestThreshold' })] },
      };
      await expect(readJsonRequest(request({ digestThreshold: bad }), channelChangeRequest)).rejects.toMatchObject(
        refusal,
      );
      await expect(
        readJsonRequest(
          request({ kind: 'webhook', target: 'https://receiver.example/hook', digestThreshold: bad }),
          channelCreateRequest,
        ),
      ).rejects.toMatchObject(refusal);
    },
  );

  it('is 5 unless set, takes 0 to 100, and is listed with the channel', async () => {
    const made = await channel({ kind: 'webhook', target: `${receivers.sink.url}/setting` });
    expect(made.digestThreshold).toBe(5);
    for (const value of [0, 100]) {
      expect(await readJsonRequest(request({ digestThreshold: value }), channelChangeRequest)).toEqual({
        digestThreshold: value,
      });
      expect(
        (await updateChannel(t.db, 'acme', made.id, ADMIN, { digestThreshold: value }))!.channel.digestThreshold,
      ).toBe(value);
    }
    expect((await listChannels(t.db, 'acme')).find((each) => each.id === made.id)).toMatchObject({
      digestThreshold: 100,
    });
  });
});
