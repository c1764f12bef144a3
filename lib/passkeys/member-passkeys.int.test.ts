/** What an admin sees of a person's passkeys: only a member of the admin's own tenant, and never key material. */
import { beforeAll, describe, expect, it } from 'vitest';
import { passkeys } from '@/db/schema';
import { newId } from '@/lib/ids';
import { setupTestDatabase } from '@/test/db';
import { type SeededWorld, seedWorld } from '@/test/world';
import { memberPasskeys } from './removal';

const t = setupTestDatabase();
let world: SeededWorld;

beforeAll(async () => {
  world = await seedWorld(t.db);
  for (const name of ['alice', 'erin'] as const) {
    const id = newId('psk');
    await t.db
      .insert(passkeys)
      .values({ id, userId: world.userId(name), credentialId: `cred-${id}`, publicKey: 'cose', name: `${name}'s key` });
  }
});

describe('memberPasskeys', () => {
  it('lists a member’s passkeys as views: names and dates, no credential or key', async () => {
    const listed = await memberPasskeys(t.db, 'acme', world.userId('alice'));
    expect(listed).toEqual([
      { id: expect.any(String), name: "alice's key", createdAt: expect.any(String), lastUsedAt: null },
    ]);
  });

  it.each([
    ['a person of another tenant', 'acme', 'erin'],
    ['a member of acme, asked by globex', 'globex', 'carol'],
  ] as const)('refuses %s as not found', async (_label, tenantId, person) => {
    await expect(memberPasskeys(t.db, tenantId, world.userId(person))).rejects.toMatchObject({
      category: 'not_found',
      message: 'No member with that id.',
    });
  });

  it('refuses an unknown person as not found', async () => {
    await expect(memberPasskeys(t.db, 'acme', newId('usr'))).rejects.toMatchObject({
      category: 'not_found',
      message: 'No member with that id.',
    });
  });
});
