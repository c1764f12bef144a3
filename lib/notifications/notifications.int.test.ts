import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  auditEvents,
  auditHeads,
  type NotificationDelivery,
  notificationDeliveries,
  outbox,
  proposals,
} from '@/db/schema';
import type { HttpSink } from '@/demo/receivers/http-sink';
import type { MailCatcher } from '@/demo/receivers/mail-catcher';
import { executeCommand } from '@/lib/commands/execute';
import { decide } from '@/lib/decisions/decide';
import { reviseProposal } from '@/lib/decisions/revise';
import { chainAllPending } from '@/lib/events/chainer';
import { chainStatus, watchAuditChains } from '@/lib/jobs/watch-audit-chain';
import { severityOf } from '@/lib/shared/severity';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, executeToUnknownOutcome, writeClients } from '@/test/fixtures/jobs';
import { setupReceivers } from '@/test/fixtures/notifications';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { type ChannelInput, createChannel, retryDelivery, updateChannel, updateNotificationSettings } from './channels';
import { type DeliveryOptions, deliverNotifications, MAX_DELIVERY_ATTEMPTS, sendTestDelivery } from './deliver';
import { fanOutNotifications } from './fanout';
import { sweepReminders } from './schedule';

const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);
const receivers = setupReceivers(() => t.db);
let sink: HttpSink;
let mail: MailCatcher;
beforeAll(() => void ({ sink, mail } = receivers));
const BASE = 'https://countersign.example';
const { admin: ADMIN, opened, targets, options: mailOptions } = receivers;
let sequence = 0;

async function channel(input: ChannelInput, tenant = 'acme') {
  const created = await createChannel(t.db, tenant, ADMIN, input, { targets: targets() });
  if (!created) throw new Error('no such tenant');
  opened.push(created.channel.id);
  if (created.secret) sink.expectSecret(new URL(input.target).pathname, created.secret);
  return created;
}

async function proposeHold(tenant: 'acme' | 'globex' = 'acme', now = new Date()) {
  const agent = tenant === 'acme' ? seeded.acme : seeded.globex;
  const sku = tenant === 'acme' ? 'filter-blue' : 'filter-green';
  const body = {
    requestId: `req_notify_${++sequence}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku, quantity: 3 },
  };
  const { proposal } = await submitAs(t.db, systems.client, agent, body, { now });
  return proposal;
}

/** Fans out what is in the outbox, then sends what is due, as the worker's one-second job does. */
async function runJob(now = new Date(), options: Partial<DeliveryOptions> = {}) {
  await fanOutNotifications(t.db, { baseUrl: BASE, now });
  return deliverNotifications(t.db, { ...mailOptions(), now, ...options });
}

async function deliveriesTo(channelId: string): Promise<NotificationDelivery[]> {
  return t.db
    .select()
    .from(notificationDeliveries)
    .where(eq(notificationDeliveries.channelId, channelId))
    .orderBy(notificationDeliveries.createdAt, notificationDeliveries.id);
}

/** Makes a waiting delivery due now, as if its backoff had passed. */
async function makeDue(id: string) {
  await t.db.update(notificationDeliveries).set({ availableAt: new Date() }).where(eq(notificationDeliveries.id, id));
}

const webhookBody = (request: { body: string }) =>
  JSON.parse(request.body) as {
    type: string;
    timestamp: string;
    data: Record<string, unknown>;
    facts: { label: string; value: string }[];
  };

// Slack's Block Kit limits for the blocks we send (api.slack.com/reference/block-kit/blocks).
// Only plain text: nothing from a name is ever formatted (mrkdwn), mentioned or linked.
const plain = (max: number) =>
  z.strictObject({ type: z.literal('plain_text'), text: z.string().min(1).max(max), emoji: z.literal(false) });
const plainText = plain(150);
const slackMessage = z.strictObject({
  text: z.string().min(1).max(3000),
  mrkdwn: z.literal(false),
  blocks: z
    .array(
      z.discriminatedUnion('type', [
        z.strictObject({ type: z.literal('header'), text: plainText }),
        z.strictObject({
          type: z.literal('section'),
          text: plain(3000),
          fields: z.array(plain(2000)).max(10).optional(),
        }),
        z.strictObject({
          type: z.literal('actions'),
          elements: z
            .array(
              z.strictObject({
                type: z.literal('button'),
                action_id: z.string().max(255),
                text: plainText.extend({ text: z.string().min(1).max(75) }),
                url: z.url().max(3000),
                style: z.enum(['primary', 'danger']).optional(),
              }),
            )
            .min(1)
            .max(25),
        }),
      ]),
    )
    .min(1)
    .max(50),
});

describe('notifications', () => {
  it('a waiting proposal reaches a signed webhook, a Slack message and an email to those who can decide it, with the link and no argument values', async () => {
    const hook = await channel({ kind: 'webhook', target: `${sink.url}/w-first` });
    const slack = await channel({ kind: 'slack', target: `${sink.url}/s-first` });
    const email = await channel({ kind: 'email', target: 'ops@acme.test' });
    expect(email.secret).toBeNull();
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(slack.secret).toBeNull();
    mail.clear();
    const proposal = await proposeHold();
    const result = await runJob();
    expect(result).toMatchObject({ claimed: 3, delivered: 3, retrying: 0, dead: 0 });
    const link = `${BASE}/proposals/${proposal.id}?via=notification`;

    const [webhook] = sink.received('/w-first');
    expect(sink.received('/w-first')).toHaveLength(1);
    expect(webhook!.signature).toBe('valid');
    const [delivery] = await deliveriesTo(hook.channel.id);
    expect(webhook!.headers['webhook-id']).toBe(delivery!.id);
    expect(webhook!.headers['content-type']).toBe('application/json');
    expect(webhookBody(webhook!)).toMatchObject({
      type: 'proposal.waiting',
      data: {
        proposalId: proposal.id,
        url: link,
        risk: 'low',
        agent: proposal.agentName,
        status: 'pending_approval',
        resource: 'sku filter-blue',
        approvals: 0,
        approvalsNeeded: 1,
        needsYou: true,
      },
    });
    expect(webhookBody(webhook!).facts).toContainEqual({ label: 'Approvals', value: '0 of 1' });
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200 });
    expect(delivery!.latencyMs).toBeGreaterThanOrEqual(0);

    const [slackRequest] = sink.received('/s-first');
    const message = slackMessage.parse(JSON.parse(slackRequest!.body));
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Waiting for a decision: Hold stock' } });
    expect(message.blocks.at(-1)).toMatchObject({
      type: 'actions',
      elements: [{ text: { text: 'Review' }, url: link }],
    });
    const fields = JSON.stringify(message.blocks[1]);
    for (const fact of [
      'Needs you\\nyes: 1 more approval needed',
      'Resource\\nsku filter-blue',
      'Approvals\\n0 of 1',
      'Proposed by\\nagent acme-support-bot',
      'Time left\\n24 h',
    ])
      expect(fields).toContain(fact);

    const [letter] = mail.received();
    expect(mail.received()).toHaveLength(1);
    expect(letter!.to.sort()).toEqual(['alice@acme.test', 'bob@acme.test', 'carol@acme.test', 'ops@acme.test']);
    expect(letter!.subject).toBe(
      `Needs you: [Countersign] Hold stock proposed by agent ${proposal.agentName} (${proposal.id})`,
    );
    expect(letter!.text).toContain('Needs you: yes: 1 more approval needed');
    expect(letter!.text).toContain('Resource: sku filter-blue');
    expect(letter!.messageId).toBe(`<proposal.${proposal.id}@countersign.example>`);
    expect(letter!.text).toContain(`Review: ${link}`);
    expect(letter!.html).toContain(`href="${link}"`);
    expect(letter!.headers['x-countersign-event']).toBe('proposal.waiting');

    // By default no argument value leaves but the resource's id (the SKU, as the catalog named it at intake): not the
    // quantity.
    for (const text of [webhook!.body, slackRequest!.body, letter!.text, letter!.html, letter!.subject]) {
      expect(text.replaceAll('sku filter-blue', '').replaceAll('sku filter\u2060-blue', '')).not.toContain(
        'filter-blue',
      );
      expect(text).not.toMatch(/\b3 ×|quantity/i);
    }
    // Nothing is due any more: each delivery went out once.
    expect(await runJob()).toMatchObject({ claimed: 0 });
  });

  it('with the tenant’s opt-in, messages carry the action’s own summary with values', async () => {
    await updateNotificationSettings(t.db, 'acme', ADMIN, {
      reminderLeadMinutes: 60,
      escalateAfterMinutes: 120,
      notifyWithValues: true,
    });
    try {
      await channel({ kind: 'webhook', target: `${sink.url}/w-values` });
      await proposeHold();
      await runJob();
      expect(webhookBody(sink.received('/w-values')[0]!).data.details).toBe('Hold 3 × filter-blue (warehouse north)');
    } finally {
      await updateNotificationSettings(t.db, 'acme', ADMIN, {
        reminderLeadMinutes: 60,
        escalateAfterMinutes: 120,
        notifyWithValues: false,
      });
    }
  });

  it('retries a failing receiver with backoff and the same webhook-id, then delivers it once', async () => {
    const hook = await channel({ kind: 'webhook', target: `${sink.url}/w-retry` });
    sink.fail('/w-retry', { status: 500 }, 2);
    await proposeHold();
    const start = new Date();
    expect(await runJob(start, { random: () => 0.5 })).toMatchObject({ retrying: 1 });
    let [row] = await deliveriesTo(hook.channel.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastError: 'http_500', lastStatus: 500 });
    expect(row!.availableAt.getTime()).toBe(start.getTime() + 5_000);
    // Not due yet: nothing is sent early.
    expect(await runJob(new Date(start.getTime() + 4_000))).toMatchObject({ claimed: 0 });
    expect(await runJob(new Date(start.getTime() + 5_000), { random: () => 0.5 })).toMatchObject({ retrying: 1 });
    [row] = await deliveriesTo(hook.channel.id);
    expect(row!.availableAt.getTime()).toBe(start.getTime() + 5_000 + 30_000);
    expect(await runJob(new Date(start.getTime() + 35_000))).toMatchObject({ delivered: 1 });
    const requests = sink.received('/w-retry');
    expect(requests.map((request) => request.status)).toEqual([500, 500, 200]);
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    for (const request of requests) expect(request.signature).toBe('valid');
    [row] = await deliveriesTo(hook.channel.id);
    expect(row).toMatchObject({ status: 'delivered', attempts: 3, lastError: null, lastStatus: 200 });
  });

  it('counts a receiver that never answers as a failed attempt after the timeout', async () => {
    const hook = await channel({ kind: 'webhook', target: `${sink.url}/w-hang` });
    sink.fail('/w-hang', { hang: true });
    await proposeHold();
    // The request's deadline is the one given (300 ms, not the default): read from the abort signal it is sent with,
    // not from a clock.
    const deadlines = vi.spyOn(AbortSignal, 'timeout');
    try {
      expect(await runJob(new Date(), { timeoutMs: 300 })).toMatchObject({ retrying: 1 });
      expect(deadlines.mock.calls).toEqual([[300]]);
    } finally {
      deadlines.mockRestore();
    }
    expect((await deliveriesTo(hook.channel.id))[0]).toMatchObject({
      status: 'pending',
      lastError: 'timeout',
      lastStatus: null,
    });
  });

  it('ends dead after the last attempt; a person’s retry sends it again under the same id', async () => {
    const hook = await channel({ kind: 'webhook', target: `${sink.url}/w-dead` });
    sink.fail('/w-dead', { status: 503 }, MAX_DELIVERY_ATTEMPTS);
    await proposeHold();
    await fanOutNotifications(t.db, { baseUrl: BASE });
    const [pending] = await deliveriesTo(hook.channel.id);
    for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
      await makeDue(pending!.id);
      await deliverNotifications(t.db, mailOptions());
    }
    let [row] = await deliveriesTo(hook.channel.id);
    expect(row).toMatchObject({ status: 'dead', attempts: MAX_DELIVERY_ATTEMPTS, lastError: 'http_503' });
    expect(row!.deadAt).toBeInstanceOf(Date);
    await makeDue(row!.id);
    expect(await deliverNotifications(t.db, mailOptions())).toMatchObject({ claimed: 0 });

    expect(await retryDelivery(t.db, 'globex', row!.id, ADMIN), 'another tenant cannot retry it').toBeUndefined();
    expect(await retryDelivery(t.db, 'acme', row!.id, ADMIN)).toEqual({ id: row!.id });
    await chainAllPending(t.db);
    const [audited] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, 'acme'), eq(auditEvents.type, 'delivery.retried')));
    expect(audited).toMatchObject({
      actorType: 'user',
      actorId: 'test-admin',
      data: { delivery: row!.id, channel: hook.channel.id, event: 'proposal.waiting' },
    });
    expect(await deliverNotifications(t.db, mailOptions())).toMatchObject({ delivered: 1 });
    [row] = await deliveriesTo(hook.channel.id);
    expect(row).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await retryDelivery(t.db, 'acme', row!.id, ADMIN), 'only a dead delivery is retried').toBeUndefined();
    const requests = sink.received('/w-dead');
    expect(requests).toHaveLength(MAX_DELIVERY_ATTEMPTS + 1);
    expect(new Set(requests.map((request) => request.headers['webhook-id']))).toEqual(new Set([row!.id]));
  });

  it('Slack: a refusal that retrying cannot fix is dead at once', async () => {
    const slack = await channel({ kind: 'slack', target: `${sink.url}/s-gone` });
    sink.fail('/s-gone', { status: 410 });
    await proposeHold();
    await runJob();
    expect((await deliveriesTo(slack.channel.id))[0]).toMatchObject({
      status: 'dead',
      attempts: 1,
      lastError: 'http_410',
      lastStatus: 410,
    });
  });

  it('email: a permanent SMTP refusal is dead at once, a temporary one is retried, no SMTP server is dead with its reason', async () => {
    const email = await channel({ kind: 'email', target: 'ops@acme.test' });
    mail.clear();
    mail.refuse(550);
    await proposeHold();
    await runJob();
    expect((await deliveriesTo(email.channel.id))[0]).toMatchObject({
      status: 'dead',
      lastError: 'smtp_550',
      lastStatus: 550,
    });
    mail.refuse(451);
    await proposeHold();
    await runJob();
    expect((await deliveriesTo(email.channel.id))[1]).toMatchObject({
      status: 'pending',
      lastError: 'smtp_451',
      attempts: 1,
    });
    await makeDue((await deliveriesTo(email.channel.id))[1]!.id);
    await runJob();
    expect((await deliveriesTo(email.channel.id))[1]).toMatchObject({
      status: 'delivered',
      attempts: 2,
      lastStatus: 250,
    });
    expect(mail.received()).toHaveLength(1);

    await proposeHold();
    await fanOutNotifications(t.db, { baseUrl: BASE });
    await deliverNotifications(t.db, { mail: { from: 'x@countersign.example' }, targets: targets() });
    expect((await deliveriesTo(email.channel.id))[2]).toMatchObject({
      status: 'dead',
      lastError: 'smtp_not_configured',
    });
  });

  it('a decision follows in the same email thread, to those involved', async () => {
    const email = await channel({
      kind: 'email',
      target: 'ops@acme.test',
      events: ['proposal.waiting', 'proposal.decided'],
    });
    mail.clear();
    const proposal = await proposeHold();
    await runJob();
    await decide(t.db, systems.client, {
      proposalId: proposal.id,
      userId: seeded.world.userId('alice'),
      request: { decision: 'approve', payloadHash: proposal.payloadHash },
    });
    await runJob();
    const [waiting, decided] = mail.received();
    expect(mail.received()).toHaveLength(2);
    // The decision needs no one: the thread's topic without "Needs you".
    expect(waiting!.subject).toMatch(/^Needs you: \[Countersign\] /);
    expect(decided!.subject).toBe(`Re: ${waiting!.subject.replace(/^Needs you: /, '')}`);
    expect(decided!.inReplyTo).toBe(waiting!.messageId);
    expect(decided!.references).toEqual([waiting!.messageId]);
    expect(decided!.text).toMatch(/^Approved\n/);
    expect(decided!.text).toContain('Decided by: Alice');
    // Those involved: who decided it and the admins (plus the channel's own address).
    expect(decided!.to.sort()).toEqual(['alice@acme.test', 'carol@acme.test', 'ops@acme.test']);
    const events = (await deliveriesTo(email.channel.id)).map((row) => row.event);
    expect(events).toEqual(['proposal.waiting', 'proposal.decided']);
  });

  it('an execution is told to those involved; an unknown outcome to admins', async () => {
    const email = await channel({
      kind: 'email',
      target: 'ops@acme.test',
      events: ['proposal.executed', 'execution.outcome_unknown'],
    });
    mail.clear();
    const write = writeClients(systems.systems.service.url, systems.systems.credentials);
    const hold = () => ({
      requestId: `req_notify_${++sequence}`,
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    });
    const ok = await approvedCommand(t.db, systems.client, seeded.acme, seeded.world.userId('bob'), hold(), new Date());
    await executeCommand(t.db, {
      scope: ok.scope,
      jws: ok.jws,
      systems: systems.client,
      writeClient: write(ok.scope),
      deadlineMs: 1_000,
    });
    const unsure = await approvedCommand(
      t.db,
      systems.client,
      seeded.acme,
      seeded.world.userId('bob'),
      hold(),
      new Date(),
    );
    const fault = await fetch(`${systems.systems.service.url}/__faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'holds', mode: 'timeout_after_commit' }),
    });
    expect(fault.ok).toBe(true);
    await executeToUnknownOutcome(
      t.db,
      unsure,
      { systems: systems.client, writeClient: write(unsure.scope) },
      new Date(),
    );
    await runJob();
    // Fanned out in one run with one clock: compare in a fixed order.
    const rows = (await deliveriesTo(email.channel.id)).sort((a, b) => a.event.localeCompare(b.event)).reverse();
    expect(rows.map((row) => [row.proposalId, row.event, row.data.status])).toEqual([
      [ok.proposal.id, 'proposal.executed', 'succeeded'],
      [unsure.proposal.id, 'execution.outcome_unknown', 'outcome_unknown'],
    ]);
    const byEvent = (event: string) =>
      mail.received().find((letter) => letter.headers['x-countersign-event'] === event);
    const [executed, unknown] = [byEvent('proposal.executed'), byEvent('execution.outcome_unknown')];
    expect(executed!.text).toMatch(/^Executed\n/);
    expect(executed!.to.sort()).toEqual(['bob@acme.test', 'carol@acme.test', 'ops@acme.test']);
    expect(unknown!.text).toMatch(/^Outcome unknown: the write may or may not have happened\n/);
    expect(unknown!.to.sort()).toEqual(['carol@acme.test', 'ops@acme.test']);
  });

  it('only subscribed, enabled channels of the proposal’s own tenant receive it', async () => {
    const theirs = await channel({ kind: 'webhook', target: `${sink.url}/w-globex` }, 'globex');
    const unsubscribed = await channel({
      kind: 'webhook',
      target: `${sink.url}/w-unsubscribed`,
      events: ['proposal.decided'],
    });
    const disabled = await channel({ kind: 'webhook', target: `${sink.url}/w-disabled` });
    await updateChannel(t.db, 'acme', disabled.channel.id, ADMIN, { enabled: false });
    await proposeHold();
    await runJob();
    for (const path of ['/w-globex', '/w-unsubscribed', '/w-disabled'])
      expect(sink.received(path), path).toHaveLength(0);
    for (const id of [theirs.channel.id, unsubscribed.channel.id, disabled.channel.id])
      expect(await deliveriesTo(id)).toHaveLength(0);
    await updateChannel(t.db, 'globex', theirs.channel.id, ADMIN, { enabled: false });
  });

  it('reminds those who can decide before expiry and escalates to admins, once each, on an injected clock', async () => {
    await updateNotificationSettings(t.db, 'acme', ADMIN, {
      reminderLeadMinutes: 60,
      escalateAfterMinutes: 30,
      notifyWithValues: false,
    });
    const email = await channel({
      kind: 'email',
      target: 'ops@acme.test',
      events: ['proposal.reminder', 'proposal.escalated'],
    });
    const created = new Date('2035-03-01T09:00:00Z');
    const proposal = await proposeHold('acme', created);
    const decidedOne = await proposeHold('acme', created);
    await t.db.update(proposals).set({ status: 'rejected' }).where(eq(proposals.id, decidedOne.id));
    const at = (minutes: number) => new Date(created.getTime() + minutes * 60_000);
    const count = async (topic: string) =>
      Number(
        (
          await t.db
            .select({ n: sql<number>`count(*)` })
            .from(outbox)
            .where(and(eq(outbox.topic, topic), eq(outbox.proposalId, proposal.id)))
        )[0]!.n,
      );

    await sweepReminders(t.db, at(29));
    expect([await count('proposal.escalated'), await count('proposal.reminder')]).toEqual([0, 0]);
    await sweepReminders(t.db, at(30));
    await sweepReminders(t.db, at(31));
    expect([await count('proposal.escalated'), await count('proposal.reminder')]).toEqual([1, 0]);
    await sweepReminders(t.db, at(24 * 60 - 61));
    expect(await count('proposal.reminder')).toBe(0);
    await sweepReminders(t.db, at(24 * 60 - 60));
    await sweepReminders(t.db, at(24 * 60 - 10));
    expect(await count('proposal.reminder')).toBe(1);
    await sweepReminders(t.db, at(24 * 60 + 1));
    expect(await count('proposal.reminder')).toBe(1);
    const decidedNotices = await t.db.select().from(outbox).where(eq(outbox.proposalId, decidedOne.id));
    expect(decidedNotices.map((row) => row.topic).filter((topic) => topic !== 'proposal.created')).toEqual([]);

    mail.clear();
    await runJob();
    const rows = (await deliveriesTo(email.channel.id)).filter((row) => row.proposalId === proposal.id);
    expect(rows.map((row) => row.event).sort()).toEqual(['proposal.escalated', 'proposal.reminder']);
    const escalation = mail.received().find((letter) => letter.headers['x-countersign-event'] === 'proposal.escalated');
    const reminder = mail.received().find((letter) => letter.headers['x-countersign-event'] === 'proposal.reminder');
    expect(escalation!.to.sort()).toEqual(['carol@acme.test', 'ops@acme.test']);
    expect(reminder!.to.sort()).toEqual(['alice@acme.test', 'bob@acme.test', 'carol@acme.test', 'ops@acme.test']);
    expect(reminder!.text).toContain('Expires soon, still undecided');

    await updateNotificationSettings(t.db, 'acme', ADMIN, {
      reminderLeadMinutes: 0,
      escalateAfterMinutes: 0,
      notifyWithValues: false,
    });
    const quiet = await proposeHold('acme', created);
    await sweepReminders(t.db, at(24 * 60 - 5));
    expect(
      await t.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.proposalId, quiet.id), eq(outbox.topic, 'proposal.reminder'))),
    ).toHaveLength(0);
    await updateNotificationSettings(t.db, 'acme', ADMIN, {
      reminderLeadMinutes: 60,
      escalateAfterMinutes: 120,
      notifyWithValues: false,
    });
  });

  it('a revision says it is one, who edited it and why; a reminder of a half-approved refund says "1 of 2" and who it still needs — value-free', async () => {
    const hook = await channel({
      kind: 'webhook',
      target: `${sink.url}/w-facts`,
      events: ['proposal.waiting', 'proposal.reminder'],
    });
    const parent = await proposeHold();
    const revision = await reviseProposal(t.db, systems.client, {
      userId: seeded.world.userId('alice'),
      proposalId: parent.id,
      args: { sku: 'filter-blue', quantity: 2 },
      reason: 'Customer kept one filter',
    });
    await runJob();
    const revised = sink
      .received('/w-facts')
      .map(webhookBody)
      .find((body) => body.data.proposalId === revision.id)!;
    expect(revised.data).toMatchObject({
      revisionOf: parent.id,
      editedBy: expect.stringMatching(/^alice$/i),
      revisionReason: 'Customer kept one filter',
      needsYou: true,
      approvals: 0,
      approvalsNeeded: 1,
    });
    expect(revised.facts).toContainEqual({
      label: 'Revision',
      value: `of ${parent.id}, edited by ${String(revised.data.editedBy)}`,
    });

    const created = new Date('2035-04-01T09:00:00Z');
    const refund = (
      await submitAs(
        t.db,
        systems.client,
        seeded.acme,
        {
          requestId: `req_notify_${++sequence}`,
          action: 'issue_refund',
          contractVersion: 1,
          args: { orderId: 'ord_1843', amountMinor: 15000, currency: 'EUR', reason: 'Two items arrived broken' },
        },
        { now: created },
      )
    ).proposal;
    await decide(
      t.db,
      systems.client,
      {
        userId: seeded.world.userId('bob'),
        proposalId: refund.id,
        request: { decision: 'approve', payloadHash: refund.payloadHash },
      },
      new Date(created.getTime() + 60_000),
    );
    const soon = new Date(refund.expiresAt.getTime() - 30 * 60_000);
    await sweepReminders(t.db, soon);
    await runJob(soon);
    const reminder = sink
      .received('/w-facts')
      .map(webhookBody)
      .find((body) => body.type === 'proposal.reminder' && body.data.proposalId === refund.id)!;
    expect(reminder.data).toMatchObject({
      resource: 'order ord_1843',
      approvals: 1,
      approvalsNeeded: 2,
      needsYou: true,
    });
    // Two approvers make it at least medium, whatever its stored risk.
    expect(reminder.data.severity).toBe(
      severityOf({ risk: String(reminder.data.risk), flags: [], approvalsNeeded: 2 }).level,
    );
    expect(reminder.data.severity).not.toBe('low');
    expect(reminder.facts).toEqual(
      expect.arrayContaining([
        { label: 'Needs you', value: 'yes: 1 more approval needed' },
        { label: 'Approvals', value: '1 of 2' },
        { label: 'Time left', value: '30 min' },
      ]),
    );
    const body = JSON.stringify(reminder);
    for (const value of ['15000', '150.00', 'Two items arrived broken']) expect(body).not.toContain(value);
    expect((await deliveriesTo(hook.channel.id)).every((row) => row.status === 'delivered')).toBe(true);
  });

  it('tells admins once when an agent’s repair chain runs out', async () => {
    await channel({ kind: 'webhook', target: `${sink.url}/w-repair`, events: ['intake.repair_exhausted'] });
    const bad = (requestId: string, repairOf?: string) => ({
      requestId,
      ...(repairOf ? { repairOf } : {}),
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 9 },
    });
    const chain = ['req_chain_0', 'req_chain_1', 'req_chain_2', 'req_chain_3'];
    for (const [index, requestId] of chain.entries()) {
      await expect(submitAs(t.db, systems.client, seeded.acme, bad(requestId, chain[index - 1]))).rejects.toMatchObject(
        { status: 422 },
      );
    }
    // The same last repair again, and one past the limit: no second notice.
    await expect(submitAs(t.db, systems.client, seeded.acme, bad('req_chain_3', 'req_chain_2'))).rejects.toMatchObject({
      status: 422,
    });
    await expect(submitAs(t.db, systems.client, seeded.acme, bad('req_chain_4', 'req_chain_3'))).rejects.toMatchObject({
      code: 'repair_limit_reached',
    });
    const notices = await t.db.select().from(outbox).where(eq(outbox.topic, 'intake.repair_exhausted'));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.body).toMatchObject({ rootRequestId: 'req_chain_0', requestId: 'req_chain_3' });
    await runJob();
    const [received] = sink.received('/w-repair');
    expect(sink.received('/w-repair')).toHaveLength(1);
    expect(webhookBody(received!)).toMatchObject({
      type: 'intake.repair_exhausted',
      data: { requestId: 'req_chain_0', url: `${BASE}/contracts/attempts?exhausted=1` },
    });
  });

  it('"send a test" delivers a channel.test message now and reports the result', async () => {
    const hook = await channel({ kind: 'webhook', target: `${sink.url}/w-test` });
    const row = await sendTestDelivery(t.db, 'acme', hook.channel.id, { ...mailOptions(), baseUrl: BASE });
    expect(row).toMatchObject({ status: 'delivered', event: 'channel.test', attempts: 1, lastStatus: 200 });
    expect(webhookBody(sink.received('/w-test')[0]!)).toMatchObject({
      type: 'channel.test',
      data: { url: `${BASE}/settings/notifications` },
    });
    expect(
      await sendTestDelivery(t.db, 'globex', hook.channel.id, { ...mailOptions(), baseUrl: BASE }),
    ).toBeUndefined();
  });

  // Last: it breaks globex's chain on purpose.
  it('re-verifies audit chains and tells admins once when a row was changed behind the database’s back', async () => {
    await channel({ kind: 'webhook', target: `${sink.url}/w-chain`, events: ['audit.chain_broken'] }, 'globex');
    await proposeHold('globex');
    expect(await chainStatus(t.db, 'globex')).toEqual({ state: 'unchecked' });
    expect((await watchAuditChains(t.db)).broken).toEqual([]);
    const [head] = await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, 'globex'));
    expect(await chainStatus(t.db, 'globex')).toMatchObject({ state: 'verified', throughSeq: head!.seq });
    expect((await watchAuditChains(t.db)).broken).toEqual([]);
    await t.owner.execute(sql`alter table audit_events disable trigger audit_events_append_only`);
    await t.owner.execute(
      sql`update audit_events set data = '{"tampered":true}'::jsonb where tenant_id = 'globex' and seq = 1`,
    );
    await t.owner.execute(sql`alter table audit_events enable trigger audit_events_append_only`);
    // The pass that had reached the head starts again from genesis and finds the old row.
    expect((await watchAuditChains(t.db)).broken).toEqual(['globex']);
    expect(await chainStatus(t.db, 'globex')).toMatchObject({ state: 'broken', seq: 1, reason: 'hash_mismatch' });
    expect((await watchAuditChains(t.db)).broken).toEqual([]);
    await runJob();
    const received = sink.received('/w-chain');
    expect(received).toHaveLength(1);
    expect(webhookBody(received[0]!)).toMatchObject({
      type: 'audit.chain_broken',
      data: { tenant: 'globex', seq: 1, url: `${BASE}/history` },
    });
  });
});
