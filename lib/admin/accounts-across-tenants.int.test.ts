import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, memberships, signInThrottles, users } from '@/db/schema';
import { type MailCatcher, startMailCatcher } from '@/demo/receivers/mail-catcher';
import { addressProvenBySso, sendEmailCode, verifyEmailCode } from '@/lib/auth/email-codes';
import { hashPassword, verifyPassword } from '@/lib/auth/password';
import { sessionIsLive, startSession } from '@/lib/auth/sessions';
import { chainAllPending } from '@/lib/events/chainer';
import { readJsonRequest } from '@/lib/http/body';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { seededWorld } from '@/test/world';
import { createUser, grantRole } from './accounts';
import { acceptInvitation, createInvitation, sendInvitationCode } from './invitations';
import { asMemberApi, removeMembership } from './members';
import { acceptRequest } from './requests';

const t = setupTestDatabase();
const seeded = seededWorld(t);

let mail: MailCatcher;
/** The mail catcher on loopback is the one private origin these emails may reach. */
const mailOnly = () => ({ allowedPrivateOrigins: [mail.url] });
beforeAll(async () => {
  mail = await startMailCatcher();
});
afterAll(async () => {
  await mail?.close();
});

const MALLORY = '203.0.113.66';
const PASSWORD = 'mallory chose this one';

function invite(tenantId: 'acme' | 'globex', email: string, by: 'carol' | 'erin') {
  return asMemberApi(() =>
    createInvitation(t.db, { email, name: 'Frank', role: 'approver', tenantId, invitedBy: seeded.world.userId(by) }),
  );
}

/** Counts Argon2 hashes on the acceptance path (the seam acceptInvitation takes). */
function countingHash() {
  const counter = { hashes: 0, hash: (password: string) => ((counter.hashes += 1), hashPassword(password)) };
  return counter;
}

const accept = (
  body: { token: string; code?: string; password?: string; sso?: true },
  who: { userId?: string; address?: string } = {},
) => asMemberApi(() => acceptInvitation(t.db, body, { address: who.address ?? MALLORY, userId: who.userId }));

describe('an account made by one tenant’s link never opens another tenant', () => {
  it("the account acme's admin made with frank@globex.test's link (single sign-on, no credential) cannot join globex until its address is proven", async () => {
    // Carol (acme's admin) invites the not-yet-existing frank and accepts for single sign-on herself.
    const acmeLink = await invite('acme', 'frank@globex.test', 'carol');
    const made = await accept({ token: acmeLink.token, sso: true });
    const [frank] = await t.db.select().from(users).where(eq(users.id, made.userId));
    expect(frank).toMatchObject({ createdByTenantId: 'acme', emailVerifiedAt: null, passwordHash: null });

    // Globex invites frank. The token alone is refused with the answer a new address gets.
    const globexLink = await invite('globex', 'frank@globex.test', 'erin');
    const newcomer = await invite('globex', 'nobody-yet@globex.test', 'erin');
    const tokenAlone = await expectApiError(accept({ token: globexLink.token }), {
      status: 422,
      code: 'code_required',
    });
    const newcomerAlone = await expectApiError(accept({ token: newcomer.token }), {
      status: 422,
      code: 'code_required',
    });
    expect(tokenAlone.message).toBe(newcomerAlone.message);
    // Nor does a password go on it without the code.
    await expectApiError(accept({ token: globexLink.token, password: 'another of mallory' }), {
      status: 422,
      code: 'code_required',
    });
    expect((await t.db.select().from(users).where(eq(users.id, frank!.id)))[0]!.passwordHash).toBeNull();

    // Nor can the operator's CLI hand the confined account another tenant's role.
    await expect(grantRole(t.db, { tenantId: 'globex', email: 'frank@globex.test', role: 'viewer' })).rejects.toThrow(
      'proves the address',
    );
    // Globex's trail does not say whether the address had an account.
    await chainAllPending(t.db);
    const [invited] = (await t.db.select().from(auditEvents).where(eq(auditEvents.tenantId, 'globex'))).filter(
      (event) =>
        event.type === 'membership.invited' &&
        (event.data as { invitation: string }).invitation === globexLink.invitation.id,
    );
    expect(Object.keys(invited!.data as object).sort()).toEqual(['invitation', 'replaced', 'role']);
    expect(
      (await t.db.select().from(memberships).where(eq(memberships.userId, frank!.id))).map((m) => m.tenantId),
    ).toEqual(['acme']);

    // The address's owner proves it with the code globex's invitation page emails, and chooses a password.
    mail.clear();
    await sendInvitationCode(t.db, globexLink.token, MALLORY, {
      smtpUrl: mail.url,
      from: 'Countersign <c@countersign.test>',
      targets: mailOnly(),
    });
    const [letter] = mail.received();
    expect(letter!.to).toEqual(['frank@globex.test']);
    const code = /\b(\d{6})\b/.exec(letter!.subject)![1]!;
    await expect(accept({ token: globexLink.token, code, password: PASSWORD })).resolves.toMatchObject({
      tenantId: 'globex',
      signIn: 'password',
    });
    expect(
      (await t.db.select().from(memberships).where(eq(memberships.userId, frank!.id))).map((m) => m.tenantId).sort(),
    ).toEqual(['acme', 'globex']);
  });

  it('a single sign-on that vouched for the address proves it as the code does', async () => {
    const made = await accept({ token: (await invite('acme', 'sso-person@globex.test', 'carol')).token, sso: true });
    const globexLink = await invite('globex', 'sso-person@globex.test', 'erin');
    await expectApiError(accept({ token: globexLink.token }, { userId: made.userId }), {
      status: 409,
      code: 'address_unverified',
    });
    await addressProvenBySso(t.db, made.userId);
    await expect(accept({ token: globexLink.token }, { userId: made.userId })).resolves.toMatchObject({
      tenantId: 'globex',
    });
    await chainAllPending(t.db);
    const proven = (await t.db.select().from(auditEvents).where(eq(auditEvents.type, 'auth.email_verified'))).filter(
      (event) => (event.data as { user: string }).user === made.userId,
    );
    expect(proven.map((event) => [event.tenantId, event.reasonCode])).toEqual([['acme', 'oidc']]);
  });

  it('a signed-in person cannot accept a link for another address', async () => {
    const link = await invite('acme', 'someone-else@acme.test', 'carol');
    await expectApiError(accept({ token: link.token }, { userId: seeded.world.userId('erin') }), {
      status: 403,
      code: 'invitation_for_another_address',
    });
  });
});

describe('an emailed code', () => {
  it('is hashed, single-use, limited to 5 wrong tries, and cannot be asked for twice a minute', async () => {
    const { id: userId } = await createUser(t.db, { email: 'codes@elsewhere.test', name: 'Codes', password: PASSWORD });
    const smtp = { smtpUrl: mail.url, from: 'Countersign <c@countersign.test>', targets: mailOnly() };
    const start = new Date(Date.UTC(2031, 0, 1));
    mail.clear();
    await sendEmailCode(t.db, userId, smtp, start);
    const code = /\b(\d{6})\b/.exec(mail.received()[0]!.subject)![1]!;
    await expectApiError(sendEmailCode(t.db, userId, smtp, new Date(start.getTime() + 30_000)), {
      status: 429,
      code: 'code_recently_sent',
    });
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++)
      await expectApiError(verifyEmailCode(t.db, userId, wrong, undefined, start), { status: 422, code: 'code_wrong' });
    await expectApiError(verifyEmailCode(t.db, userId, code, undefined, start), {
      status: 429,
      code: 'code_attempts_exhausted',
    });

    const later = new Date(start.getTime() + 61_000);
    mail.clear();
    await sendEmailCode(t.db, userId, smtp, later);
    const fresh = /\b(\d{6})\b/.exec(mail.received()[0]!.subject)![1]!;
    await expectApiError(verifyEmailCode(t.db, userId, fresh, undefined, new Date(later.getTime() + 15 * 60_000)), {
      status: 410,
      code: 'code_expired',
    });
    await verifyEmailCode(t.db, userId, fresh, undefined, later);
    await expectApiError(verifyEmailCode(t.db, userId, fresh, undefined, later), { status: 410, code: 'code_expired' });
    await expectApiError(sendEmailCode(t.db, userId, { from: 'x@countersign.test' }), {
      status: 503,
      code: 'email_unavailable',
    });
  });
});

describe('removing a member', () => {
  it('ends nothing another tenant gave: erin, removed from acme after joining it, stays signed in to globex', async () => {
    const erin = seeded.world.userId('erin');
    const link = await invite('acme', 'erin@globex.test', 'carol');
    await accept({ token: link.token }, { userId: erin });
    const session = await startSession(t.db, erin, 'credentials');
    await removeMembership(t.db, {
      tenantId: 'acme',
      userId: erin,
      actor: { type: 'user', id: seeded.world.userId('carol') },
    });
    expect(await sessionIsLive(t.db, session, erin)).toBe(true);
  });
});

describe('the public accept route', () => {
  const throttleRow = async (address: string) =>
    (
      await t.db
        .select()
        .from(signInThrottles)
        .where(eq(signInThrottles.key, `address:${address}`))
    )[0];

  it('looks the token up before any hash, and counts every failure at the address in the sign-in throttle', async () => {
    const address = '203.0.113.9';
    const counter = countingHash();
    for (let i = 0; i < 50; i++) {
      await expectApiError(
        acceptInvitation(t.db, { token: 'A'.repeat(43), password: PASSWORD }, { address, hash: counter.hash }),
        { status: 404, code: 'invitation_not_found' },
      );
    }
    expect(counter.hashes).toBe(0);
    expect((await throttleRow(address))!.failures).toBe(50);
    // The 51st is refused before the token is even looked up.
    await expectApiError(
      acceptInvitation(t.db, { token: 'A'.repeat(43), password: PASSWORD }, { address, hash: counter.hash }),
      { status: 429, code: 'too_many_attempts' },
    );
    expect(counter.hashes).toBe(0);
  });

  it('hashes only for an address with a pending code, once', async () => {
    const counter = countingHash();
    const address = '203.0.113.10';
    const link = await invite('acme', 'hash-once@acme.test', 'carol');
    await expectApiError(
      acceptInvitation(
        t.db,
        { token: link.token, code: '123456', password: PASSWORD },
        { address, hash: counter.hash },
      ),
      { status: 410, code: 'code_expired' },
    );
    expect(counter.hashes).toBe(0);
    mail.clear();
    await sendInvitationCode(t.db, link.token, address, {
      smtpUrl: mail.url,
      from: 'c@countersign.test',
      targets: mailOnly(),
    });
    const code = /\b(\d{6})\b/.exec(mail.received()[0]!.subject)![1]!;
    await acceptInvitation(t.db, { token: link.token, code, password: PASSWORD }, { address, hash: counter.hash });
    expect(counter.hashes).toBe(1);
    // The successes gave their own counts back; the failure before them stays.
    expect((await throttleRow(address))!.failures).toBe(1);
  });

  it.each([
    ['257 characters', 'x'.repeat(257), 'too_big'],
    ['11 characters', 'x'.repeat(11), 'too_small'],
  ])('refuses a password of %s (422 invalid_acceptance on the password field)', async (_label, password, code) => {
    const request = new Request('http://countersign.test/api/v1/invitations/accept', {
      method: 'POST',
      body: JSON.stringify({ token: 'A'.repeat(43), password }),
      headers: { 'content-type': 'application/json' },
    });
    const error = await expectApiError(readJsonRequest(request, acceptRequest), {
      status: 422,
      code: 'invalid_acceptance',
    });
    expect(error.details.issues).toEqual([expect.objectContaining({ field: 'password', code })]);
  });

  it('caps the password at 256 characters wherever it is hashed or checked', async () => {
    await expect(hashPassword('x'.repeat(257))).rejects.toThrow('at most 256');
    expect(await verifyPassword(await hashPassword('x'.repeat(256)), 'x'.repeat(257))).toBe(false);
  });
});
