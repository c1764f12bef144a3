/**
 * The public accept route and the email-code routes as Next calls them (a fetch Request with the
 * socket's peer stamped, a same-origin Origin). next-auth does not load outside Next, so `auth()`
 * answers the session this file names; everything below it (the database, SMTP) is real.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { POST as accept } from '@/app/api/v1/invitations/accept/route';
import { POST as sendInvitationCode } from '@/app/api/v1/invitations/code/route';
import { signInThrottles, users } from '@/db/schema';
import { type MailCatcher, startMailCatcher } from '@/demo/receivers/mail-catcher';
import { setupTestDatabase } from '@/test/db';
import { freePort } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { createInvitation } from './invitations';

const session = vi.hoisted(() => ({ userId: undefined as string | undefined }));
vi.mock('@/lib/auth', () => ({ auth: async () => (session.userId ? { operatorId: session.userId } : null) }));

const t = setupTestDatabase();
const seeded = seededWorld(t);

// The server's SMTP_URL is read once: point it at this file's mail catcher (on loopback, so listed
// as the one private origin mail may reach) before anything reads it.
const mailPort = await freePort();
process.env.SMTP_URL = `smtp://127.0.0.1:${mailPort}`;
process.env.NOTIFY_ALLOWED_PRIVATE_ORIGINS = process.env.SMTP_URL;
// Single sign-on configured (never reached: the accept route only checks that it is).
Object.assign(process.env, {
  OIDC_ISSUER: 'https://idp.countersign.test',
  OIDC_CLIENT_ID: 'countersign',
  OIDC_CLIENT_SECRET: 'not-a-secret',
});
let mail: MailCatcher;
const globalForDb = globalThis as unknown as { countersignDb?: Promise<unknown> };
beforeAll(async () => {
  mail = await startMailCatcher({ port: mailPort });
  globalForDb.countersignDb = Promise.resolve(t.handle);
});
afterAll(async () => {
  globalForDb.countersignDb = undefined;
  delete process.env.SMTP_URL;
  delete process.env.NOTIFY_ALLOWED_PRIVATE_ORIGINS;
  for (const name of ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET']) delete process.env[name];
  await mail?.close();
});

const ORIGIN = 'http://countersign.test';
const post = (path: string, body: unknown, address = '198.51.100.20') =>
  new Request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: {
      host: 'countersign.test',
      origin: ORIGIN,
      'content-type': 'application/json',
      'x-countersign-peer': address,
    },
    body: JSON.stringify(body),
  });
const acceptAs = async (userId: string | undefined, body: unknown, address?: string) => {
  session.userId = userId;
  const response = await accept(post('/api/v1/invitations/accept', body, address));
  return {
    status: response.status,
    body: (await response.json()) as {
      error?: { code: string; message: string; issues?: { field: string }[] };
    } & Record<string, unknown>,
  };
};
const asUser = async (userId: string | undefined, route: typeof sendInvitationCode, path: string, body: unknown) => {
  session.userId = userId;
  const response = await route(post(path, body));
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown> & { error?: { code: string } },
  };
};

const invite = async (tenantId: 'acme' | 'globex', email: string) =>
  (
    await createInvitation(t.db, {
      email,
      name: 'Frank',
      role: 'approver',
      tenantId,
      invitedBy: seeded.world.userId(tenantId === 'acme' ? 'carol' : 'erin'),
    })
  ).token;

describe('POST /api/v1/invitations/accept', () => {
  it('takes over nothing: the link alone sets no credential, answers an existing address exactly as a new one, and a session must be that account’s, with a proven address', async () => {
    // Carol (acme's admin) cannot choose a password for frank@globex.test with acme's link.
    const carolsLink = await invite('acme', 'frank@globex.test');
    expect(await acceptAs(undefined, { token: carolsLink, password: 'carol chose this for frank' })).toMatchObject({
      status: 422,
      body: { error: { code: 'code_required' } },
    });
    expect(await t.db.select().from(users).where(eq(users.email, 'frank@globex.test'))).toEqual([]);
    // She can make an account with no credential (single sign-on), confined to acme.
    expect(await acceptAs(undefined, { token: carolsLink, sso: true })).toMatchObject({
      status: 200,
      body: { signIn: 'sso' },
    });
    const [frank] = await t.db.select().from(users).where(eq(users.email, 'frank@globex.test'));

    const globexLink = await invite('globex', 'frank@globex.test');
    const existing = await acceptAs(undefined, { token: globexLink });
    const fresh = await acceptAs(undefined, { token: await invite('globex', 'not-yet@globex.test') });
    expect(existing.status).toBe(422);
    expect(existing).toEqual(fresh);
    expect(JSON.stringify(existing)).not.toContain('account_exists');

    // Signed in as the frank she made, refused: his address is unproven.
    expect(await acceptAs(frank!.id, { token: globexLink })).toMatchObject({
      status: 409,
      body: { error: { code: 'address_unverified' } },
    });
    // Someone else's session does not fit the link either.
    expect(await acceptAs(seeded.world.userId('alice'), { token: globexLink })).toMatchObject({
      status: 403,
      body: { error: { code: 'invitation_for_another_address' } },
    });

    // The address's owner gets the code by email from the invitation page, and chooses the password.
    mail.clear();
    expect(await asUser(undefined, sendInvitationCode, '/api/v1/invitations/code', { token: globexLink })).toEqual({
      status: 200,
      body: { sentTo: 'frank@globex.test' },
    });
    const [letter] = mail.received();
    expect(letter!.envelopeTo).toEqual(['frank@globex.test']);
    const code = /\b(\d{6})\b/.exec(letter!.subject)![1]!;
    expect(
      await acceptAs(undefined, { token: globexLink, code: 'abc', password: 'frank chose this himself' }),
    ).toMatchObject({ status: 422, body: { error: { code: 'invalid_acceptance' } } });
    expect(await acceptAs(undefined, { token: globexLink, code, password: 'frank chose this himself' })).toMatchObject({
      status: 200,
      body: { signIn: 'password', tenantName: 'Globex' },
    });
  });

  it('refuses a bogus token before hashing, counting each at the address until the throttle answers 429', async () => {
    const address = '198.51.100.99';
    for (let i = 0; i < 50; i++)
      expect((await acceptAs(undefined, { token: 'B'.repeat(43), password: 'x'.repeat(200) }, address)).status).toBe(
        404,
      );
    const [row] = await t.db
      .select()
      .from(signInThrottles)
      .where(eq(signInThrottles.key, `address:${address}`));
    expect(row!.failures).toBe(50);
    const throttled = await acceptAs(undefined, { token: 'B'.repeat(43), password: 'x'.repeat(200) }, address);
    expect(throttled).toMatchObject({ status: 429, body: { error: { code: 'too_many_attempts' } } });
  });

  it('refuses a password over 256 characters with a 422 naming the field, and creates nothing', async () => {
    const token = await invite('acme', 'long-password@acme.test');
    const refused = await acceptAs(undefined, { token, password: 'x'.repeat(257) });
    expect(refused).toMatchObject({ status: 422, body: { error: { code: 'invalid_acceptance' } } });
    expect(refused.body.error!.issues!.map((issue) => issue.field)).toEqual(['password']);
    expect(await t.db.select().from(users).where(eq(users.email, 'long-password@acme.test'))).toEqual([]);
    // 256 characters pass the schema and reach the next rule: a password needs the emailed code.
    expect(await acceptAs(undefined, { token, password: 'x'.repeat(256) })).toMatchObject({
      status: 422,
      body: { error: { code: 'code_required' } },
    });
  });
});
