import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { memberships, users } from '@/db/schema';
import { startMailCatcher } from '@/demo/receivers/mail-catcher';
import { Refusal } from '@/lib/errors/refusal';
import { setupTestDatabase } from '@/test/db';
import { seededWorld } from '@/test/world';
import { acceptInvitation, createInvitation, sendInvitationCode } from './invitations';
import { changeRole, removeMembership } from './members';

/** Races on a real server: the last-admin rule and single use hold when requests arrive together. */
const t = setupTestDatabase();
const ANON = { address: '198.51.100.7' };
if (t.driver !== 'postgres')
  throw new Error('members.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
const seeded = seededWorld(t);

async function adminsOfAcme() {
  return t.db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.tenantId, 'acme'), eq(memberships.role, 'admin')));
}

describe('under concurrency', () => {
  it.each([
    [
      'demote each other',
      (a: string, b: string) => [
        changeRole(t.db, { tenantId: 'acme', userId: a, role: 'viewer', actor: { type: 'user', id: b } }),
        changeRole(t.db, { tenantId: 'acme', userId: b, role: 'viewer', actor: { type: 'user', id: a } }),
      ],
    ],
    [
      'remove each other',
      (a: string, b: string) => [
        removeMembership(t.db, { tenantId: 'acme', userId: a, actor: { type: 'user', id: b } }),
        removeMembership(t.db, { tenantId: 'acme', userId: b, actor: { type: 'user', id: a } }),
      ],
    ],
  ])(
    'two admins who %s at once leave one admin (the other is refused as last_admin, no deadlock)',
    async (_label, race) => {
      const carol = seeded.world.userId('carol');
      const bob = seeded.world.userId('bob');
      await changeRole(t.db, { tenantId: 'acme', userId: bob, role: 'admin', actor: { type: 'user', id: carol } });
      const results = await Promise.allSettled(race(carol, bob));
      const refused = results.filter((r) => r.status === 'rejected');
      expect(refused).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(Refusal);
      expect(((refused[0] as PromiseRejectedResult).reason as Refusal).code).toBe('last_admin');
      expect(await adminsOfAcme()).toHaveLength(1);
      // Put acme back as seeded: carol the one admin, bob an approver.
      for (const person of [carol, bob]) {
        await t.db
          .insert(memberships)
          .values({ tenantId: 'acme', userId: person, role: person === carol ? 'admin' : 'approver' })
          .onConflictDoUpdate({
            target: [memberships.tenantId, memberships.userId],
            set: { role: person === carol ? 'admin' : 'approver' },
          });
      }
    },
  );

  it('accepts one invitation once when two acceptances with the same right code race', async () => {
    const { token } = await createInvitation(t.db, {
      email: 'racer@acme.test',
      name: 'Racer',
      role: 'viewer',
      tenantId: 'acme',
      invitedBy: seeded.world.userId('carol'),
    });
    const mail = await startMailCatcher();
    await sendInvitationCode(t.db, token, ANON.address, {
      smtpUrl: mail.url,
      from: 'c@countersign.test',
      targets: { allowedPrivateOrigins: [mail.url] },
    });
    const code = /\b(\d{6})\b/.exec(mail.received()[0]!.subject)![1]!;
    await mail.close();
    const results = await Promise.allSettled([
      acceptInvitation(t.db, { token, code, password: 'first long password' }, ANON),
      acceptInvitation(t.db, { token, code, password: 'second long password' }, ANON),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(
      ((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as { code: string }).code,
    ).toBe('invitation_used');
    expect(await t.db.select().from(users).where(eq(users.email, 'racer@acme.test'))).toHaveLength(1);
  });
});
