import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationChannels } from '@/db/schema';
import { type HttpSink, startHttpSink } from '@/demo/receivers/http-sink';
import { type MailCatcher, startMailCatcher } from '@/demo/receivers/mail-catcher';
import { setupTestDatabase } from '@/test/db';
import { seededWorld } from '@/test/world';
import { createChannel, updateChannel } from './channels';
import { sendTestDelivery } from './deliver';
import type { Resolve, TargetPolicy } from './outbound';

/**
 * The server as a scanner of its own network (issue 21 §4): a real sink on loopback is reachable only as an allowed
 * origin.
 */
const t = setupTestDatabase();
seededWorld(t);
const ADMIN = { type: 'user' as const, id: 'test-admin' };
const BASE = 'https://countersign.example';
let sink: HttpSink;
let mail: MailCatcher;
let port: string;

beforeAll(async () => {
  [sink, mail] = await Promise.all([startHttpSink(), startMailCatcher()]);
  port = new URL(sink.url).port;
});
afterAll(async () => {
  await Promise.all([sink?.close(), mail?.close()]);
});

const NONE: TargetPolicy = { allowedPrivateOrigins: [] };
const only = (...origins: string[]): TargetPolicy => ({ allowedPrivateOrigins: origins });
const answering =
  (address: string): Resolve =>
  async () => [{ address, family: address.includes(':') ? 6 : 4 }];
const sendTest = (channelId: string, targets: TargetPolicy) =>
  sendTestDelivery(t.db, 'acme', channelId, {
    mail: { smtpUrl: mail.url, from: 'cs@countersign.example' },
    targets,
    baseUrl: BASE,
  });

async function channelsAt(target: string) {
  return t.db.select().from(notificationChannels).where(eq(notificationChannels.target, target));
}

describe('saving a webhook or Slack target', () => {
  const spellings = (path: string) => [
    `http://127.0.0.1:${port}${path}`,
    `http://localhost:${port}${path}`,
    `http://localhost.:${port}${path}`,
    `http://2130706433:${port}${path}`,
    `http://0x7f.1:${port}${path}`,
    `http://017700000001:${port}${path}`,
    `http://127.1:${port}${path}`,
    `http://0.0.0.0:${port}${path}`,
    `http://[::1]:${port}${path}`,
    `http://[::ffff:127.0.0.1]:${port}${path}`,
    `http://[::ffff:7f00:1]:${port}${path}`,
  ];

  it('refuses every spelling of loopback without the allow list: 422 target_not_allowed, nothing saved', async () => {
    for (const [i, target] of spellings('/refused').entries()) {
      const kind = i % 2 === 0 ? 'webhook' : 'slack';
      await expect(
        createChannel(t.db, 'acme', ADMIN, { kind, target }, { targets: NONE }),
        target,
      ).rejects.toMatchObject({
        status: 422,
        code: 'target_not_allowed',
        message: expect.stringContaining('not a public internet address'),
      });
      expect(await channelsAt(target)).toEqual([]);
    }
    expect(sink.received()).toEqual([]);
  });

  it('allows exactly the listed origin, and no other spelling or port of it', async () => {
    const allowed = only(sink.url);
    const created = await createChannel(
      t.db,
      'acme',
      ADMIN,
      { kind: 'webhook', target: `${sink.url}/allowed` },
      { targets: allowed },
    );
    expect(created?.channel.target).toBe(`${sink.url}/allowed`);
    for (const target of [
      ...spellings('/other').slice(1),
      `http://127.0.0.1:${Number(port) + 1}/other`,
      `https://127.0.0.1:${port}/other`,
    ]) {
      if (
        target.startsWith('http://2130706433') ||
        target.startsWith('http://0x7f.1') ||
        target.startsWith('http://017700000001') ||
        target.startsWith('http://127.1')
      ) {
        // The URL parser spells these 127.0.0.1: the same origin, so allowed.
        await expect(
          createChannel(t.db, 'acme', ADMIN, { kind: 'webhook', target }, { targets: allowed }),
        ).resolves.toBeDefined();
        continue;
      }
      await expect(
        createChannel(t.db, 'acme', ADMIN, { kind: 'webhook', target }, { targets: allowed }),
        target,
      ).rejects.toMatchObject({ code: 'target_not_allowed' });
    }
  });

  it('refuses a changed target on loopback and leaves the channel as it was', async () => {
    const created = await createChannel(
      t.db,
      'acme',
      ADMIN,
      { kind: 'slack', target: 'https://hooks.example.invalid/services/x' },
      { targets: NONE },
    );
    const id = created!.channel.id;
    await expect(
      updateChannel(t.db, 'acme', id, ADMIN, { target: `http://localhost:${port}/moved` }, { targets: NONE }),
    ).rejects.toMatchObject({ status: 422, code: 'target_not_allowed' });
    const [row] = await t.db.select().from(notificationChannels).where(eq(notificationChannels.id, id));
    expect(row?.target).toBe('https://hooks.example.invalid/services/x');
  });

  it('refuses a name the resolver answers with a private address', async () => {
    const targets = { allowedPrivateOrigins: [], resolve: answering('10.0.0.7') };
    await expect(
      createChannel(t.db, 'acme', ADMIN, { kind: 'webhook', target: 'https://intranet.example/hook' }, { targets }),
    ).rejects.toMatchObject({ code: 'target_not_allowed' });
  });
});

describe('sending a test and delivering', () => {
  it('refuses a loopback target at delivery too: a failed attempt with its code, no status, no latency, nothing sent', async () => {
    const created = await createChannel(
      t.db,
      'acme',
      ADMIN,
      { kind: 'webhook', target: `${sink.url}/was-allowed`, events: ['proposal.waiting'] },
      { targets: only(sink.url) },
    );
    const row = await sendTest(created!.channel.id, NONE);
    expect(row).toMatchObject({
      status: 'dead',
      lastError: 'target_not_allowed',
      lastStatus: null,
      latencyMs: null,
      attempts: 1,
    });
    expect(sink.received('/was-allowed')).toEqual([]);
  });

  it('delivers to the allowed origin, signed, to the address it checked (the name is never looked up again)', async () => {
    // `sink.test` resolves nowhere but through this resolver: arriving at the sink proves the checked address was used.
    const targets = { allowedPrivateOrigins: [`http://sink.test:${port}`], resolve: answering('127.0.0.1') };
    const created = await createChannel(
      t.db,
      'acme',
      ADMIN,
      { kind: 'webhook', target: `http://sink.test:${port}/pinned` },
      { targets },
    );
    sink.expectSecret('/pinned', created!.secret!);
    const row = await sendTest(created!.channel.id, targets);
    expect(row).toMatchObject({ status: 'delivered', lastStatus: 200 });
    const [arrived] = sink.received('/pinned');
    expect(arrived).toMatchObject({ signature: 'valid', headers: { host: `sink.test:${port}` } });
  });

  it('a name that was public when saved and private when sent is refused (no rebinding)', async () => {
    const created = await createChannel(
      t.db,
      'acme',
      ADMIN,
      { kind: 'webhook', target: `http://rebind.example:${port}/rebind` },
      { targets: { allowedPrivateOrigins: [], resolve: answering('93.184.216.34') } },
    );
    const row = await sendTest(created!.channel.id, { allowedPrivateOrigins: [], resolve: answering('127.0.0.1') });
    expect(row).toMatchObject({ status: 'dead', lastError: 'target_not_allowed', lastStatus: null, latencyMs: null });
    expect(sink.received('/rebind')).toEqual([]);
  });

  it('email leaves only through an allowed or public SMTP server', async () => {
    const created = await createChannel(
      t.db,
      'acme',
      ADMIN,
      { kind: 'email', target: 'ops@acme.test' },
      { targets: NONE },
    );
    const refused = await sendTest(created!.channel.id, only(sink.url));
    expect(refused).toMatchObject({
      status: 'dead',
      lastError: 'target_not_allowed',
      lastStatus: null,
      latencyMs: null,
    });
    expect(mail.received()).toEqual([]);
    const sent = await sendTest(created!.channel.id, only(mail.url));
    expect(sent).toMatchObject({ status: 'delivered', lastStatus: 250 });
    expect(mail.received()).toHaveLength(1);
  });
});
