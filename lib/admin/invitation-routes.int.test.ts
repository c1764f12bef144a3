/**
 * The public accept route and the email-code routes as Next calls them (a fetch Request with the
 * socket's peer stamped, a same-origin Origin). next-auth does not load outside Next, so `auth()`
 * answers the session this file names; everything below it (the database, SMTP) is real.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { POST as sendCode } from '@/app/api/v1/account/email-code/route';
import { POST as checkCode } from '@/app/api/v1/account/email-code/verify/route';
import { POST as accept } from '@/app/api/v1/invitations/accept/route';
import { signInThrottles, users } from '@/db/schema';
import { startMailCatcher, type MailCatcher } from '@/demo/receivers/mail-catcher';
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
  await mail?.close();
});

const ORIGIN = 'http://countersign.test';
const post = (path: string, body: unknown, address = '198.51.100.20') =>
  new Request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { host: 'countersign.test', origin: ORIGIN, 'content-type': 'application/json', 'x-countersign-peer': address },
    body: JSON.stringify(body),
  });
const acceptAs = async (userId: string | undefined, body: unknown, address?: string) => {
  session.userId = userId;
  const response = await accept(post('/api/v1/invitations/accept', body, address));
  return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string; issues?: { field: string }[] } } & Record<string, unknown> };
};
const context = { params: Promise.resolve({}) };
const asUser = async (userId: string, route: typeof sendCode, path: string, body: unknown) => {
  session.userId = userId;
  const response = await route(post(path, body), context);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { code: string } } };
};

const invite = async (tenantId: 'acme' | 'globex', email: string) =>
  (await createInvitation(t.db, { email, name: 'Frank', role: 'approver', tenantId, invitedBy: seeded.world.userId(tenantId === 'acme' ? 'carol' : 'erin') })).token;

describe('POST /api/v1/invitations/accept', () => {
  it('takes over nothing: the token alone answers an existing address exactly as a new one, and a session must be that account’s, with a proven address', async () => {
    const made = await acceptAs(undefined, { token: await invite('acme', 'frank@globex.test'), password: 'carol chose this for frank' });
    expect(made).toMatchObject({ status: 200, body: { email: 'frank@globex.test', signIn: 'password' } });
    const [frank] = await t.db.select().from(users).where(eq(users.email, 'frank@globex.test'));

    const globexLink = await invite('globex', 'frank@globex.test');
    const existing = await acceptAs(undefined, { token: globexLink });
    const fresh = await acceptAs(undefined, { token: await invite('globex', 'not-yet@globex.test') });
    expect(existing.status).toBe(422);
    expect(existing).toEqual(fresh);
    expect(JSON.stringify(existing)).not.toContain('account_exists');

    // Carol, signed in as the frank she made, is refused: his address is unproven.
    expect(await acceptAs(frank!.id, { token: globexLink })).toMatchObject({ status: 409, body: { error: { code: 'address_unverified' } } });
    // Someone else's session does not fit the link either.
    expect(await acceptAs(seeded.world.userId('alice'), { token: globexLink })).toMatchObject({ status: 403, body: { error: { code: 'invitation_for_another_address' } } });

    // The address's owner gets the code by email, proves it, and then the signed-in acceptance works.
    mail.clear();
    expect(await asUser(frank!.id, sendCode, '/api/v1/account/email-code', {})).toEqual({ status: 200, body: { sentTo: 'frank@globex.test' } });
    const [letter] = mail.received();
    expect(letter!.envelopeTo).toEqual(['frank@globex.test']);
    const code = /\b(\d{6})\b/.exec(letter!.subject)![1]!;
    expect(await asUser(frank!.id, checkCode, '/api/v1/account/email-code/verify', { code: 'abc' })).toMatchObject({ status: 422, body: { error: { code: 'invalid_code' } } });
    expect(await asUser(frank!.id, checkCode, '/api/v1/account/email-code/verify', { code })).toMatchObject({ status: 200 });
    expect(await acceptAs(frank!.id, { token: globexLink })).toMatchObject({ status: 200, body: { signIn: 'existing', tenantName: 'Globex' } });
  });

  it('refuses a bogus token before hashing, counting each at the address until the throttle answers 429', async () => {
    const address = '198.51.100.99';
    for (let i = 0; i < 50; i++) expect((await acceptAs(undefined, { token: 'B'.repeat(43), password: 'x'.repeat(200) }, address)).status).toBe(404);
    const [row] = await t.db.select().from(signInThrottles).where(eq(signInThrottles.key, `address:${address}`));
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
    expect(await acceptAs(undefined, { token, password: 'x'.repeat(256) })).toMatchObject({ status: 200 });
  });
});
