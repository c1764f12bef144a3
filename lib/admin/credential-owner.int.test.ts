/**
 * Only the owner of an address ever sets its account's credential (issue 35 §3), through the real
 * routes (a fetch Request as Next passes it, same-origin, the peer stamped), the real database and
 * a real SMTP catcher. The invariant: a credential (a password or a passkey) is set only by someone
 * who proved the address in the same flow (the emailed code, or a single sign-on that vouches for
 * it), or by the CLI on the server; proving the address of an account an invitation link made ends
 * its sessions and removes every credential it had.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { POST as sendOwnCodeRoute } from '@/app/api/v1/account/email-code/route';
import { POST as proveRoute } from '@/app/api/v1/account/email-code/verify/route';
import { POST as acceptRoute } from '@/app/api/v1/invitations/accept/route';
import { POST as codeRoute } from '@/app/api/v1/invitations/code/route';
import { POST as passkeyOptionsRoute } from '@/app/api/v1/me/passkeys/options/route';
import { auditEvents, emailCodes, memberships, passkeys, sessions, users } from '@/db/schema';
import { type MailCatcher, startMailCatcher } from '@/demo/receivers/mail-catcher';
import { changePassword, createUser } from '@/lib/admin/accounts';
import { addressProvenBySso, ssoMayOpen } from '@/lib/auth/email-codes';
import { hashPassword, verifyPassword } from '@/lib/auth/password';
import { sessionIsLive, startPasswordSession, startSession } from '@/lib/auth/sessions';
import { chainAllPending } from '@/lib/events/chainer';
import { newId } from '@/lib/ids';
import { routeSession } from '@/test/route-session';
import { ROUTE_ORIGIN, setupRouteWorld } from '@/test/route-world';
import { freePort } from '@/test/systems';
import { createInvitation } from './invitations';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

// The server's SMTP_URL is read once: point it at this file's mail catcher before anything reads it.
const mailPort = await freePort();
process.env.SMTP_URL = `smtp://127.0.0.1:${mailPort}`;
process.env.NOTIFY_ALLOWED_PRIVATE_ORIGINS = process.env.SMTP_URL;
// Single sign-on configured (never reached: the accept route only checks that it is).
Object.assign(process.env, {
  OIDC_ISSUER: 'https://idp.countersign.test',
  OIDC_CLIENT_ID: 'countersign',
  OIDC_CLIENT_SECRET: 'not-a-secret',
});

const { t, seeded } = await setupRouteWorld();
let mail: MailCatcher;
beforeAll(async () => {
  mail = await startMailCatcher({ port: mailPort });
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  delete process.env.NOTIFY_ALLOWED_PRIVATE_ORIGINS;
  for (const name of ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET']) delete process.env[name];
  await mail?.close();
});

/** Globex's admin, who pre-claims addresses in the story; her password. */
const ERIN_CHOSE = 'erin chose this for frank';
const OWNER_CHOOSES = 'the owner chose this herself';

type Answer = { status: number; body: Record<string, unknown> & { error?: { code: string; message: string } } };

async function call(
  route: (request: Request, context: { params: Promise<Record<string, never>> }) => Promise<Response>,
  path: string,
  body: unknown,
  as?: string,
  address = '198.51.100.35',
): Promise<Answer> {
  routeSession.userId = as;
  const request = new Request(`${ROUTE_ORIGIN}${path}`, {
    method: 'POST',
    headers: {
      host: 'countersign.test',
      origin: ROUTE_ORIGIN,
      'content-type': 'application/json',
      'x-countersign-peer': address,
    },
    body: JSON.stringify(body),
  });
  const response = await route(request, { params: Promise.resolve({}) });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const accept = (body: unknown, as?: string) => call(acceptRoute, '/api/v1/invitations/accept', body, as);
const sendCode = (token: string) => call(codeRoute, '/api/v1/invitations/code', { token });

async function invite(tenantId: 'acme' | 'globex', email: string) {
  const by = seeded.world.userId(tenantId === 'acme' ? 'carol' : 'erin');
  return (await createInvitation(t.db, { email, name: 'Frank', role: 'approver', tenantId, invitedBy: by })).token;
}

/** The code the last email to `email` carries (the catcher on loopback stands for the owner's inbox). */
function lastCodeTo(email: string) {
  const letter = mail
    .received()
    .filter((received) => received.envelopeTo.includes(email))
    .at(-1);
  expect(letter, `no code was emailed to ${email}`).toBeDefined();
  return /\b(\d{6})\b/.exec(letter!.subject)![1]!;
}

/**
 * What an invitation link could make before this change: globex's admin accepted frank's link with
 * a password she chose, signed in as him (a live session) and added a passkey. Written as rows,
 * since no route makes it any more (the first test shows the route refusing).
 */
async function preClaimed(email: string) {
  const id = newId('usr');
  await t.db.insert(users).values({
    id,
    email,
    name: 'Frank (by erin)',
    passwordHash: await hashPassword(ERIN_CHOSE),
    createdByTenantId: 'globex',
  });
  await t.db.insert(memberships).values({ tenantId: 'globex', userId: id, role: 'approver' });
  await t.db.insert(passkeys).values({
    id: newId('psk'),
    userId: id,
    credentialId: `cred-${id}`,
    publicKey: 'pQECAyYgASFYIA',
    name: "erin's key",
  });
  const session = await startSession(t.db, id, 'credentials');
  return { id, session };
}

/** Everything a credential attempt could change about an address's account. */
async function accountState(email: string) {
  const [user] = await t.db.select().from(users).where(eq(users.email, email));
  if (!user) return { user: null };
  return {
    user,
    passkeys: await t.db.select().from(passkeys).where(eq(passkeys.userId, user.id)),
    sessions: await t.db.select().from(sessions).where(eq(sessions.userId, user.id)),
    memberships: await t.db.select().from(memberships).where(eq(memberships.userId, user.id)),
  };
}

async function erinStillHolds(user: { id: string }, session: string) {
  const [row] = await t.db.select().from(users).where(eq(users.id, user.id));
  return {
    password: await verifyPassword(row!.passwordHash, ERIN_CHOSE),
    session: await sessionIsLive(t.db, session, user.id),
    passkeys: (await t.db.select().from(passkeys).where(eq(passkeys.userId, user.id))).length,
  };
}

describe("another tenant's admin cannot choose the credential of an address she invites", () => {
  it('refuses a password with the link alone, signed out, with the same answer whether or not the address has an account, and makes nothing', async () => {
    const fresh = await invite('globex', 'frank-new@acme.test');
    const refused = await accept({ token: fresh, password: ERIN_CHOSE });
    expect(refused).toMatchObject({ status: 422, body: { error: { code: 'code_required' } } });
    expect(await accountState('frank-new@acme.test')).toEqual({ user: null });

    await preClaimed('frank-old@acme.test');
    const existing = await accept({ token: await invite('acme', 'frank-old@acme.test'), password: ERIN_CHOSE });
    expect(existing).toEqual(refused);
  });

  it('single sign-on that vouches for the address takes the pre-claimed account over: her password, passkey and session end, and A’s invitation joins the owner alone', async () => {
    const frank = await preClaimed('frank-sso@acme.test');
    expect(await erinStillHolds(frank, frank.session)).toEqual({ password: true, session: true, passkeys: 1 });

    await addressProvenBySso(t.db, frank.id);
    expect(await erinStillHolds(frank, frank.session)).toEqual({ password: false, session: false, passkeys: 0 });

    // The owner, signed in by SSO, accepts acme's invitation; erin has nothing left to sign in with.
    const joined = await accept({ token: await invite('acme', 'frank-sso@acme.test') }, frank.id);
    expect(joined).toMatchObject({ status: 200, body: { tenantName: 'Acme', signIn: 'existing' } });
    const [row] = await t.db.select().from(users).where(eq(users.id, frank.id));
    expect(row).toMatchObject({ passwordHash: null, createdByTenantId: 'globex' });
    expect(row!.emailVerifiedAt).not.toBeNull();

    await chainAllPending(t.db);
    const cleared = (
      await t.db.select().from(auditEvents).where(eq(auditEvents.type, 'auth.credentials_cleared'))
    ).filter((event) => (event.data as { user: string }).user === frank.id);
    expect(cleared.map((event) => [event.tenantId, event.reasonCode, event.data])).toEqual([
      ['globex', 'oidc', { user: frank.id, password: true, passkeys: 1, sessions: 1 }],
    ]);
  });

  it('the emailed code from A’s invitation page proves the address: the owner’s password replaces erin’s, her passkey and session end, and the owner joins A', async () => {
    const frank = await preClaimed('frank-code@acme.test');
    const token = await invite('acme', 'frank-code@acme.test');
    // Signed out, the link alone: the code goes to the invited address, never one the caller names.
    mail.clear();
    expect(await sendCode(token)).toEqual({ status: 200, body: { sentTo: 'frank-code@acme.test' } });
    const code = lastCodeTo('frank-code@acme.test');

    expect(await accept({ token, code, password: OWNER_CHOOSES })).toMatchObject({
      status: 200,
      body: { email: 'frank-code@acme.test', tenantName: 'Acme', signIn: 'password' },
    });
    expect(await erinStillHolds(frank, frank.session)).toEqual({ password: false, session: false, passkeys: 0 });
    const [row] = await t.db.select().from(users).where(eq(users.id, frank.id));
    expect(await verifyPassword(row!.passwordHash, OWNER_CHOOSES)).toBe(true);
    expect(row!.emailVerifiedAt).not.toBeNull();
    expect(
      (await t.db.select().from(memberships).where(eq(memberships.userId, frank.id))).map((m) => m.tenantId).sort(),
    ).toEqual(['acme', 'globex']);
  });

  it('without SSO the pre-claim locks nobody out: the owner proves the address from any invitation and the account is hers', async () => {
    const frank = await preClaimed('frank-locked@acme.test');
    // Signed out with the password she would have to guess, or none: the same refusal as ever.
    const token = await invite('acme', 'frank-locked@acme.test');
    expect(await accept({ token })).toMatchObject({ status: 422, body: { error: { code: 'code_required' } } });
    mail.clear();
    await sendCode(token);
    expect(await accept({ token, code: lastCodeTo('frank-locked@acme.test'), password: OWNER_CHOOSES })).toMatchObject({
      status: 200,
    });
    expect(await erinStillHolds(frank, frank.session)).toEqual({ password: false, session: false, passkeys: 0 });
  });

  it('a new address gets its account only from the code: proven, with the owner’s password, and the code works once', async () => {
    const token = await invite('globex', 'newcomer@acme.test');
    mail.clear();
    await sendCode(token);
    const code = lastCodeTo('newcomer@acme.test');
    expect(await accept({ token, code, password: OWNER_CHOOSES })).toMatchObject({
      status: 200,
      body: { signIn: 'password', tenantName: 'Globex' },
    });
    const [row] = await t.db.select().from(users).where(eq(users.email, 'newcomer@acme.test'));
    expect(row!.emailVerifiedAt).not.toBeNull();
    expect(await verifyPassword(row!.passwordHash, OWNER_CHOOSES)).toBe(true);
    const [used] = await t.db.select().from(emailCodes).where(eq(emailCodes.email, 'newcomer@acme.test'));
    expect(used!.usedAt).not.toBeNull();
  });
});

describe('every way to set a credential without proving the address is refused, with a specific error, changing nothing', () => {
  type Case = {
    name: string;
    email: string;
    attempt: (ctx: { token: string; frankId: string; otherCode: string }) => Promise<Answer>;
    status: number;
    code: string;
  };
  const cases: Case[] = [
    {
      name: 'a password with the link alone',
      email: 'case-a@acme.test',
      attempt: ({ token }) => accept({ token, password: ERIN_CHOSE }),
      status: 422,
      code: 'code_required',
    },
    {
      name: 'the link alone',
      email: 'case-b@acme.test',
      attempt: ({ token }) => accept({ token }),
      status: 422,
      code: 'code_required',
    },
    {
      name: 'a wrong code',
      email: 'case-c@acme.test',
      attempt: ({ token }) => accept({ token, code: '000000', password: ERIN_CHOSE }),
      status: 422,
      code: 'code_wrong',
    },
    {
      name: "another address's right code",
      email: 'case-d@acme.test',
      attempt: ({ token, otherCode }) => accept({ token, code: otherCode, password: ERIN_CHOSE }),
      status: 422,
      code: 'code_wrong',
    },
    {
      name: 'a code without a password',
      email: 'case-e@acme.test',
      attempt: ({ token }) => accept({ token, code: '123456' }),
      status: 422,
      code: 'invalid_acceptance',
    },
    {
      name: 'a code with single sign-on',
      email: 'case-f@acme.test',
      attempt: ({ token }) => accept({ token, code: '123456', sso: true }),
      status: 422,
      code: 'invalid_acceptance',
    },
    {
      name: 'single sign-on for an address that has an account',
      email: 'case-g@acme.test',
      attempt: ({ token }) => accept({ token, sso: true }),
      status: 409,
      code: 'sign_in_required',
    },
    {
      name: 'a password signed in as the link-made account',
      email: 'case-h@acme.test',
      attempt: ({ token, frankId }) => accept({ token, password: ERIN_CHOSE }, frankId),
      status: 422,
      code: 'signed_in',
    },
    {
      name: 'joining a second tenant signed in as the link-made account',
      email: 'case-i@acme.test',
      attempt: ({ token, frankId }) => accept({ token }, frankId),
      status: 409,
      code: 'address_unverified',
    },
    {
      name: 'a passkey for the link-made account',
      email: 'case-j@acme.test',
      attempt: ({ frankId }) => call(passkeyOptionsRoute, '/api/v1/me/passkeys/options', {}, frankId),
      status: 409,
      code: 'address_unverified',
    },
    {
      name: 'the signed-in code without a new password',
      email: 'case-l@acme.test',
      attempt: ({ frankId }) => call(proveRoute, '/api/v1/account/email-code/verify', { code: '000000' }, frankId),
      status: 422,
      code: 'password_required',
    },
    {
      name: 'the code for an invitation link that does not exist',
      email: 'case-k@acme.test',
      attempt: () => sendCode('Z'.repeat(43)),
      status: 404,
      code: 'invitation_not_found',
    },
  ];

  it.each(cases)('$name: $status $code', async ({ email, attempt, status, code }) => {
    const frank = await preClaimed(email);
    const token = await invite('acme', email);
    const other = await invite('acme', `other-${email}`);
    mail.clear();
    await sendCode(token);
    await sendCode(other);
    const otherCode = lastCodeTo(`other-${email}`);
    const before = await accountState(email);
    const answer = await attempt({ token, frankId: frank.id, otherCode });
    expect(answer).toMatchObject({ status, body: { error: { code } } });
    expect(answer.body.error!.message.length).toBeGreaterThan(20);
    expect(await accountState(email)).toEqual(before);
    expect(await erinStillHolds(frank, frank.session)).toEqual({ password: true, session: true, passkeys: 1 });
  });

  it('a proven account is told to sign in: the code does not reset its password, and stays unused', async () => {
    const token = await invite('acme', 'erin@globex.test');
    const erin = seeded.world.userId('erin');
    await t.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, erin));
    mail.clear();
    await sendCode(token);
    const before = await accountState('erin@globex.test');
    expect(await accept({ token, code: lastCodeTo('erin@globex.test'), password: ERIN_CHOSE })).toMatchObject({
      status: 409,
      body: { error: { code: 'sign_in_required' } },
    });
    expect(await accountState('erin@globex.test')).toEqual(before);
    const [code] = await t.db
      .select()
      .from(emailCodes)
      .where(and(eq(emailCodes.email, 'erin@globex.test')));
    expect(code!.usedAt).toBeNull();
  });

  it('the code route answers a used or cancelled link as the accept route does, and sends nothing', async () => {
    const token = await invite('acme', 'used-link@acme.test');
    mail.clear();
    await sendCode(token);
    await accept({ token, code: lastCodeTo('used-link@acme.test'), password: OWNER_CHOOSES });
    mail.clear();
    expect(await sendCode(token)).toMatchObject({ status: 410, body: { error: { code: 'invitation_used' } } });
    expect(mail.received()).toEqual([]);
  });

  it('an address gets one code a minute, whichever link or session asks', async () => {
    const token = await invite('globex', 'dave@acme.test');
    const dave = seeded.world.userId('dave');
    expect((await sendCode(token)).status).toBe(200);
    expect(await call(sendOwnCodeRoute, '/api/v1/account/email-code', {}, dave)).toMatchObject({
      status: 429,
      body: { error: { code: 'code_recently_sent' } },
    });
  });
});

describe('a password sign-in', () => {
  it('starts a session only with the password it checked: one cleared while it was checked opens nothing', async () => {
    const frank = await preClaimed('frank-late@acme.test');
    const [row] = await t.db.select().from(users).where(eq(users.id, frank.id));
    await addressProvenBySso(t.db, frank.id);
    expect(await startPasswordSession(t.db, frank.id, row!.passwordHash!)).toBeUndefined();
    expect(
      await t.db
        .select()
        .from(sessions)
        .where(and(eq(sessions.userId, frank.id), isNull(sessions.endedAt))),
    ).toEqual([]);
  });

  it('racing the proof of the address, never outlives it (10 races)', async () => {
    for (let i = 0; i < 10; i++) {
      const frank = await preClaimed(`frank-race-${i}@acme.test`);
      const [row] = await t.db.select().from(users).where(eq(users.id, frank.id));
      await Promise.all([startPasswordSession(t.db, frank.id, row!.passwordHash!), addressProvenBySso(t.db, frank.id)]);
      expect(
        await t.db
          .select()
          .from(sessions)
          .where(and(eq(sessions.userId, frank.id), isNull(sessions.endedAt))),
      ).toEqual([]);
    }
  });
});

describe('the paths that may set a credential', () => {
  it('the CLI on the server sets one, and proving the address later keeps it (the operator set it)', async () => {
    const made = await createUser(t.db, {
      email: 'cli-made@acme.test',
      name: 'CLI',
      password: 'the operator chose this',
    });
    await changePassword(t.db, 'cli-made@acme.test', 'the operator chose again');
    await addressProvenBySso(t.db, made.id);
    const [row] = await t.db.select().from(users).where(eq(users.id, made.id));
    expect(await verifyPassword(row!.passwordHash, 'the operator chose again')).toBe(true);
  });

  it('the signed-in code with a new password proves a link-made account: only that password works, and every session ends, the prover’s too', async () => {
    const frank = await preClaimed('frank-signed-in@acme.test');
    mail.clear();
    expect((await call(sendOwnCodeRoute, '/api/v1/account/email-code', {}, frank.id)).status).toBe(200);
    const proven = await call(
      proveRoute,
      '/api/v1/account/email-code/verify',
      { code: lastCodeTo('frank-signed-in@acme.test'), password: OWNER_CHOOSES },
      frank.id,
    );
    expect(proven).toMatchObject({ status: 200, body: { credentialsCleared: true } });
    expect(await erinStillHolds(frank, frank.session)).toEqual({ password: false, session: false, passkeys: 0 });
    const [row] = await t.db.select().from(users).where(eq(users.id, frank.id));
    expect(await verifyPassword(row!.passwordHash, OWNER_CHOOSES)).toBe(true);
  });
});

describe('a single sign-on opens an account', () => {
  const cliMade = { emailVerifiedAt: null, createdByTenantId: null };
  const linkMade = { emailVerifiedAt: null, createdByTenantId: 'globex' };
  const proven = { emailVerifiedAt: new Date(), createdByTenantId: 'globex' };
  it.each([
    ['the CLI made, the provider silent', cliMade, undefined, true],
    ['the CLI made, the provider vouching', cliMade, true, true],
    ['the CLI made, the provider saying unverified', cliMade, false, false],
    ['a link made, the provider vouching', linkMade, true, true],
    ['a link made, the provider silent', linkMade, undefined, false],
    ['a link made, the provider saying unverified', linkMade, false, false],
    ['a link made, the provider saying "true" as text', linkMade, 'true', false],
    ['a link made and proven since, the provider silent', proven, undefined, true],
  ])('%s', (_label, user, emailVerified, opens) => {
    expect(ssoMayOpen(user, emailVerified)).toBe(opens);
  });
});
