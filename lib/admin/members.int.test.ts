import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, invitations, memberships, users } from '@/db/schema';
import { sessionIsLive, startSession } from '@/lib/auth/sessions';
import { chainAllPending } from '@/lib/events/chainer';
import { readJsonRequest } from '@/lib/http/body';
import { errorBody } from '@/lib/http/errors';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { seededWorld } from '@/test/world';
import {
  acceptInvitation,
  cancelInvitation,
  createInvitation,
  invitationByToken,
  invitationTokenHash,
  pendingInvitations,
} from './invitations';
import { asMemberApi, changeRole, removeMembership } from './members';
import { acceptRequest, invitationRequest, roleChangeRequest } from './requests';

const t = setupTestDatabase();
const ANON = { address: '198.51.100.7' };
const seeded = seededWorld(t);

const HOUR = 3_600_000;
const at = (hours: number) => new Date(Date.UTC(2031, 0, 1) + hours * HOUR);
const PASSWORD = 'a long enough password';

const carol = () => ({ type: 'user' as const, id: seeded.world.userId('carol') });

async function roleOf(tenantId: string, userId: string) {
  const [row] = await t.db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)));
  return row?.role;
}

async function eventsOf(tenantId: string, type: string) {
  await chainAllPending(t.db);
  return (
    await t.db.select().from(auditEvents).where(eq(auditEvents.tenantId, tenantId)).orderBy(auditEvents.seq)
  ).filter((event) => event.type === type);
}

function invite(email: string, role: 'viewer' | 'approver' | 'admin' = 'approver', now = at(0)) {
  return asMemberApi(() =>
    createInvitation(
      t.db,
      { email, name: 'New Person', role, tenantId: 'acme', invitedBy: seeded.world.userId('carol') },
      now,
    ),
  );
}

describe('an invitation link', () => {
  it('is 32 random bytes, stored only as its SHA-256, and shows whom it is for', async () => {
    const { token, invitation } = await invite('Fresh.Person@Acme.test', 'approver');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await t.db.select().from(invitations).where(eq(invitations.id, invitation.id));
    expect(row).toMatchObject({
      email: 'fresh.person@acme.test',
      tokenHash: invitationTokenHash(token),
      acceptedAt: null,
    });
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row!.expiresAt.getTime() - at(0).getTime()).toBe(72 * HOUR);
    await expect(invitationByToken(t.db, token, at(1))).resolves.toMatchObject({
      state: 'pending',
      tenantName: 'Acme',
      email: 'fresh.person@acme.test',
      role: 'approver',
    });
    const [event] = await eventsOf('acme', 'membership.invited');
    expect(event).toMatchObject({
      actorType: 'user',
      actorId: seeded.world.userId('carol'),
      reasonCode: 'approver',
      data: { invitation: invitation.id, role: 'approver', replaced: 0 },
    });
  });

  it('works once: the account, the role and the used mark land together, and a second use changes nothing', async () => {
    const { token } = await invite('once@acme.test', 'approver');
    const accepted = await acceptInvitation(t.db, { token, sso: true }, ANON, at(2));
    expect(accepted).toMatchObject({ email: 'once@acme.test', tenantName: 'Acme', role: 'approver', signIn: 'sso' });
    const [user] = await t.db.select().from(users).where(eq(users.email, 'once@acme.test'));
    expect(user!.passwordHash).toBeNull();
    expect(await roleOf('acme', user!.id)).toBe('approver');
    const granted = (await eventsOf('acme', 'membership.granted')).at(-1);
    expect(granted).toMatchObject({
      actorType: 'user',
      actorId: user!.id,
      data: { user: user!.id, role: 'approver', previousRole: null },
    });

    await expect(invitationByToken(t.db, token, at(3))).resolves.toEqual({ state: 'used', tenantName: 'Acme' });
    await expectApiError(
      acceptInvitation(t.db, { token, code: '123456', password: 'another long password' }, ANON, at(3)),
      { status: 410, code: 'invitation_used' },
    );
    const [after] = await t.db.select().from(users).where(eq(users.email, 'once@acme.test'));
    expect(after!.passwordHash).toBe(user!.passwordHash);
  });

  it('expires after 72 hours, to the millisecond, and an expired link changes nothing', async () => {
    const { token } = await invite('late@acme.test', 'viewer', at(0));
    await expect(invitationByToken(t.db, token, new Date(at(72).getTime() - 1))).resolves.toMatchObject({
      state: 'pending',
    });
    await expect(invitationByToken(t.db, token, at(72))).resolves.toEqual({ state: 'expired', tenantName: 'Acme' });
    await expectApiError(acceptInvitation(t.db, { token, password: PASSWORD }, ANON, at(72)), {
      status: 410,
      code: 'invitation_expired',
    });
    expect(await t.db.select().from(users).where(eq(users.email, 'late@acme.test'))).toEqual([]);
  });

  it.each([
    ['a made-up token', 'x'.repeat(43)],
    ['a token of the wrong shape', 'not a token'],
    ['the hash instead of the token', invitationTokenHash('x'.repeat(43))],
  ])('refuses %s as unknown', async (_label, token) => {
    await expect(invitationByToken(t.db, token)).resolves.toEqual({ state: 'unknown' });
    await expectApiError(acceptInvitation(t.db, { token, password: PASSWORD }, ANON), {
      status: 404,
      code: 'invitation_not_found',
    });
  });

  it('needs the emailed code with a password for a new account, or single sign-on', async () => {
    const { token } = await invite('choose@acme.test');
    await expectApiError(acceptInvitation(t.db, { token }, ANON, at(1)), { status: 422, code: 'code_required' });
    await expectApiError(acceptInvitation(t.db, { token, password: PASSWORD }, ANON, at(1)), {
      status: 422,
      code: 'code_required',
    });
    await expect(invitationByToken(t.db, token, at(1))).resolves.toMatchObject({ state: 'pending' });
    await expect(acceptInvitation(t.db, { token, sso: true }, ANON, at(1))).resolves.toMatchObject({ signIn: 'sso' });
    const [user] = await t.db.select().from(users).where(eq(users.email, 'choose@acme.test'));
    expect(user!.passwordHash).toBeNull();
  });

  it('grants a person from another tenant the role, signed in as themself, and never touches their password', async () => {
    const erin = seeded.world.userId('erin');
    const [before] = await t.db.select().from(users).where(eq(users.id, erin));
    const { token } = await invite('erin@globex.test', 'viewer');
    await expect(invitationByToken(t.db, token, at(1))).resolves.not.toHaveProperty('hasAccount');
    await expectApiError(acceptInvitation(t.db, { token, password: 'I am taking over erin' }, ANON, at(1)), {
      status: 422,
      code: 'code_required',
    });
    await expectApiError(acceptInvitation(t.db, { token, sso: true }, ANON, at(1)), {
      status: 409,
      code: 'sign_in_required',
    });
    await expectApiError(acceptInvitation(t.db, { token }, ANON, at(1)), { status: 422, code: 'code_required' });
    await expect(acceptInvitation(t.db, { token }, { ...ANON, userId: erin }, at(1))).resolves.toMatchObject({
      userId: erin,
      signIn: 'existing',
      role: 'viewer',
    });
    const [after] = await t.db.select().from(users).where(eq(users.id, erin));
    expect(after!.passwordHash).toBe(before!.passwordHash);
    expect(await roleOf('acme', erin)).toBe('viewer');
    expect(await roleOf('globex', erin)).toBe('approver');
    await removeMembership(t.db, { tenantId: 'acme', userId: erin, actor: carol() });
  });

  it('refuses to invite a member (409 already_member) and replaces an earlier pending invitation', async () => {
    await expectApiError(invite('alice@acme.test'), { status: 409, code: 'already_member' });
    const first = await invite('twice@acme.test', 'viewer', at(0));
    const second = await invite('twice@acme.test', 'approver', at(1));
    expect(
      (await pendingInvitations(t.db, 'acme', at(1))).filter((i) => i.email === 'twice@acme.test').map((i) => i.id),
    ).toEqual([second.invitation.id]);
    await expectApiError(acceptInvitation(t.db, { token: first.token, password: PASSWORD }, ANON, at(2)), {
      status: 410,
      code: 'invitation_expired',
    });
    await expect(acceptInvitation(t.db, { token: second.token, sso: true }, ANON, at(2))).resolves.toMatchObject({
      role: 'approver',
    });
  });

  it('is cancelled by an admin of its own tenant only; the cancelled link is dead', async () => {
    const { token, invitation } = await invite('cancel@acme.test', 'viewer', at(0));
    await expectApiError(
      cancelInvitation(
        t.db,
        { tenantId: 'globex', invitationId: invitation.id, actorId: seeded.world.userId('erin') },
        at(1),
      ),
      { status: 404, code: 'not_found' },
    );
    await expect(
      cancelInvitation(
        t.db,
        { tenantId: 'acme', invitationId: invitation.id, actorId: seeded.world.userId('carol') },
        at(1),
      ),
    ).resolves.toMatchObject({ id: invitation.id });
    expect((await eventsOf('acme', 'membership.invitation_cancelled')).at(-1)).toMatchObject({
      data: { invitation: invitation.id },
    });
    await expectApiError(acceptInvitation(t.db, { token, password: PASSWORD }, ANON, at(2)), {
      status: 410,
      code: 'invitation_expired',
    });
    await expectApiError(
      cancelInvitation(
        t.db,
        { tenantId: 'acme', invitationId: invitation.id, actorId: seeded.world.userId('carol') },
        at(2),
      ),
      { status: 404, code: 'not_found' },
    );
  });
});

describe('changing and removing members', () => {
  it('never demotes or removes the last admin (409 last_admin) and changes nothing', async () => {
    const carolId = seeded.world.userId('carol');
    for (const role of ['approver', 'viewer'] as const) {
      await expectApiError(
        asMemberApi(() => changeRole(t.db, { tenantId: 'acme', userId: carolId, role, actor: carol() })),
        { status: 409, code: 'last_admin' },
      );
    }
    await expectApiError(
      asMemberApi(() => removeMembership(t.db, { tenantId: 'acme', userId: carolId, actor: carol() })),
      { status: 409, code: 'last_admin' },
    );
    expect(await roleOf('acme', carolId)).toBe('admin');

    // With a second admin, the first may step down; then the second is the last.
    const bob = seeded.world.userId('bob');
    await changeRole(t.db, { tenantId: 'acme', userId: bob, role: 'admin', actor: carol() });
    await expect(
      changeRole(t.db, { tenantId: 'acme', userId: carolId, role: 'approver', actor: carol() }),
    ).resolves.toMatchObject({ previousRole: 'admin' });
    await expectApiError(
      asMemberApi(() => removeMembership(t.db, { tenantId: 'acme', userId: bob, actor: carol() })),
      { status: 409, code: 'last_admin' },
    );
    await changeRole(t.db, { tenantId: 'acme', userId: carolId, role: 'admin', actor: carol() });
    await changeRole(t.db, { tenantId: 'acme', userId: bob, role: 'approver', actor: carol() });
    const granted = (await eventsOf('acme', 'membership.granted')).at(-1);
    expect(granted).toMatchObject({
      actorId: carolId,
      reasonCode: 'approver',
      data: { user: bob, role: 'approver', previousRole: 'admin' },
    });
  });

  it('records nothing when the role stays the same', async () => {
    const before = (await eventsOf('acme', 'membership.granted')).length;
    await changeRole(t.db, { tenantId: 'acme', userId: seeded.world.userId('dave'), role: 'viewer', actor: carol() });
    expect((await eventsOf('acme', 'membership.granted')).length).toBe(before);
  });

  it('answers a person of another tenant and an unknown id with the same 404, changing nothing', async () => {
    const erin = seeded.world.userId('erin');
    const bodies = [];
    for (const userId of [erin, 'usr_00000000000000000000', 'anything']) {
      const change = await expectApiError(
        asMemberApi(() => changeRole(t.db, { tenantId: 'acme', userId, role: 'viewer', actor: carol() })),
        { status: 404, code: 'not_found' },
      );
      const removal = await expectApiError(
        asMemberApi(() => removeMembership(t.db, { tenantId: 'acme', userId, actor: carol() })),
        { status: 404, code: 'not_found' },
      );
      bodies.push(JSON.stringify(errorBody(change)), JSON.stringify(errorBody(removal)));
    }
    expect(new Set(bodies).size).toBe(1);
    expect(await roleOf('globex', erin)).toBe('approver');
  });

  it("removes a member's role here and leaves their sessions, which may serve other tenants, alone", async () => {
    const { token } = await invite('leaving@acme.test', 'approver');
    const { userId } = await acceptInvitation(t.db, { token, sso: true }, ANON, at(1));
    const session = await startSession(t.db, userId, 'credentials');
    await expect(removeMembership(t.db, { tenantId: 'acme', userId, actor: carol() })).resolves.toEqual({
      userId,
      role: 'approver',
    });
    expect(await sessionIsLive(t.db, session, userId)).toBe(true);
    expect(await roleOf('acme', userId)).toBeUndefined();
    expect((await eventsOf('acme', 'membership.removed')).at(-1)).toMatchObject({
      actorId: seeded.world.userId('carol'),
      reasonCode: 'approver',
      data: { user: userId },
    });
  });
});

function post(body: unknown): Request {
  return new Request('http://countersign.test/api/v1/admin/members', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
}

describe('the request bodies', () => {
  const valid = { email: 'new@acme.test', name: 'New', role: 'viewer' };

  it('accepts a valid invitation and trims the name', async () => {
    await expect(readJsonRequest(post({ ...valid, name: '  New  ' }), invitationRequest)).resolves.toEqual(valid);
  });

  it.each([
    ['a bad email', { ...valid, email: 'not-an-email' }, 'email'],
    ['an email with spaces', { ...valid, email: 'two words@acme.test' }, 'email'],
    ['no email', { name: 'New', role: 'viewer' }, 'email'],
    ['an unknown role', { ...valid, role: 'owner' }, 'role'],
    ['a role in capitals', { ...valid, role: 'Admin' }, 'role'],
    ['an empty name', { ...valid, name: '' }, 'name'],
    ['a blank name', { ...valid, name: '   ' }, 'name'],
    ['a name that is a number', { ...valid, name: 7 }, 'name'],
    ['an unknown field', { ...valid, tenant: 'globex' }, 'tenant'],
  ])('refuses an invitation with %s (422 invalid_invitation, naming the field)', async (_label, body, field) => {
    const error = await expectApiError(readJsonRequest(post(body), invitationRequest), {
      status: 422,
      code: 'invalid_invitation',
      kind: 'schema',
    });
    expect((error.details.issues as { field: string }[]).map((issue) => issue.field)).toContain(field);
  });

  it.each([
    ['an unknown role', { role: 'root' }],
    ['no role', {}],
    ['an unknown field', { role: 'viewer', userId: 'usr_x' }],
  ])('refuses a role change with %s', async (_label, body) => {
    await expectApiError(readJsonRequest(post(body), roleChangeRequest), { status: 422, code: 'invalid_role_change' });
  });

  it.each([
    ['a short password', { token: 'x'.repeat(43), password: 'eleven char' }],
    ['a password and single sign-on', { token: 'x'.repeat(43), password: PASSWORD, sso: true }],
    ['sso false', { token: 'x'.repeat(43), sso: false }],
    ['no token', { password: PASSWORD }],
    ['an unknown field', { token: 'x'.repeat(43), password: PASSWORD, role: 'admin' }],
    ['a code without a password', { token: 'x'.repeat(43), code: '123456' }],
    ['a code and single sign-on', { token: 'x'.repeat(43), code: '123456', password: PASSWORD, sso: true }],
    ['a code of five digits', { token: 'x'.repeat(43), code: '12345', password: PASSWORD }],
  ])('refuses an acceptance with %s, without echoing the password', async (_label, body) => {
    const error = await expectApiError(readJsonRequest(post(body), acceptRequest), {
      status: 422,
      code: 'invalid_acceptance',
    });
    expect(JSON.stringify(errorBody(error))).not.toContain('eleven char');
    expect(JSON.stringify(errorBody(error))).not.toContain(PASSWORD);
  });
});
