import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, tenants, users } from '@/db/schema';
import { verifyPassword } from '@/lib/auth/password';
import { Refusal } from '@/lib/errors/refusal';
import { chainAllPending } from '@/lib/events/chainer';
import { setupTestDatabase } from '@/test/db';
import { agentPrincipal } from '@/test/world';
import { createAgentKey, createTenant, createUser, grantRole, setPassword } from './accounts';

const t = setupTestDatabase();

async function tableCount(table: typeof tenants | typeof users | typeof auditEvents) {
  await chainAllPending(t.db);
  const [row] = await t.db.select({ n: count() }).from(table);
  return row?.n ?? 0;
}

describe('createTenant', () => {
  it('creates a tenant and starts its audit chain', async () => {
    const row = await createTenant(t.db, { id: 'initech', name: 'Initech' });
    expect(row).toMatchObject({ id: 'initech', name: 'Initech' });
    await chainAllPending(t.db);
    const audit = await t.db.select().from(auditEvents).where(eq(auditEvents.tenantId, 'initech'));
    expect(audit).toMatchObject([{ seq: 1, type: 'tenant.created' }]);
  });

  it.each([
    'a',
    'A',
    'Acme',
    '-acme',
    'acme_corp',
    'has space',
    'acme.test',
    'x'.repeat(41),
    '',
    'ünicode',
    'acme\n',
    ' acme',
  ])('rejects the id %j with Refusal and writes nothing', async (id) => {
    const before = { tenants: await tableCount(tenants), audit: await tableCount(auditEvents) };
    await expect(createTenant(t.db, { id, name: 'Bad' })).rejects.toBeInstanceOf(Refusal);
    expect({ tenants: await tableCount(tenants), audit: await tableCount(auditEvents) }).toEqual(before);
  });

  it.each(['ab', '0day', 'x'.repeat(40), 'a-b-c'])('accepts the id %j', async (id) => {
    await expect(createTenant(t.db, { id, name: id })).resolves.toMatchObject({ id });
  });

  it('rejects a duplicate id with Refusal and writes nothing', async () => {
    await createTenant(t.db, { id: 'hooli', name: 'Hooli' });
    const before = { tenants: await tableCount(tenants), audit: await tableCount(auditEvents) };
    const error = await createTenant(t.db, { id: 'hooli', name: 'Hooli again' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Refusal);
    expect((error as Error).message).toContain('hooli');
    expect({ tenants: await tableCount(tenants), audit: await tableCount(auditEvents) }).toEqual(before);
    const [row] = await t.db.select().from(tenants).where(eq(tenants.id, 'hooli'));
    expect(row?.name).toBe('Hooli');
  });
});

describe('createUser', () => {
  it('creates a user with a lower-cased email and an argon2id password hash', async () => {
    const user = await createUser(t.db, {
      email: '  Mallory@Example.TEST ',
      name: 'Mallory',
      password: 'twelve-chars',
    });
    expect(user.email).toBe('mallory@example.test');
    expect(user.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(user.passwordHash, 'twelve-chars')).toBe(true);
  });

  it('creates a single-sign-on user without a password', async () => {
    const user = await createUser(t.db, { email: 'sso@example.test', name: 'SSO' });
    expect(user.passwordHash).toBeNull();
    expect(await verifyPassword(user.passwordHash, '')).toBe(false);
  });

  it.each([
    ['', 'at least 12'],
    ['short', 'at least 12'],
    ['eleven-char', 'at least 12'],
    ['x'.repeat(257), 'at most 256'],
  ])('rejects the password %j with Refusal and writes nothing', async (password, says) => {
    const existing = await createUser(t.db, {
      email: `has-${password.length}@example.test`,
      name: 'Has',
      password: 'a long enough password',
    });
    const before = await tableCount(users);
    await expect(
      createUser(t.db, { email: `bad-${password.length}@example.test`, name: 'Bad', password }),
    ).rejects.toThrow(says);
    await expect(setPassword(t.db, existing.id, password)).rejects.toThrow(says);
    expect(await tableCount(users)).toBe(before);
    expect(
      await verifyPassword(
        (await t.db.select().from(users).where(eq(users.id, existing.id)))[0]!.passwordHash,
        'a long enough password',
      ),
    ).toBe(true);
  });

  it.each(['mallory@example.test', 'MALLORY@example.test', ' mallory@example.test'])(
    'rejects the duplicate email %j with Refusal',
    async (email) => {
      const before = await tableCount(users);
      await expect(
        createUser(t.db, { email, name: 'Again', password: 'another-long-password' }),
      ).rejects.toBeInstanceOf(Refusal);
      expect(await tableCount(users)).toBe(before);
    },
  );

  it.each(['not-an-email', 'a@b', '@example.test', 'two words@example.test'])(
    'rejects the email %j with Refusal',
    async (email) => {
      await expect(createUser(t.db, { email, name: 'Bad', password: 'long-enough-password' })).rejects.toBeInstanceOf(
        Refusal,
      );
    },
  );
});

describe('grantRole and createAgentKey', () => {
  it('refuse unknown users, unknown tenants, bad agent names and empty action lists with Refusal', async () => {
    await expect(
      grantRole(t.db, { tenantId: 'initech', email: 'nobody@example.test', role: 'viewer' }),
    ).rejects.toBeInstanceOf(Refusal);
    await expect(
      grantRole(t.db, { tenantId: 'no-such-tenant', email: 'mallory@example.test', role: 'viewer' }),
    ).rejects.toBeInstanceOf(Refusal);
    await expect(
      createAgentKey(t.db, { tenantId: 'no-such-tenant', agentName: 'bot', actions: ['hold_stock'] }),
    ).rejects.toBeInstanceOf(Refusal);
    await expect(
      createAgentKey(t.db, { tenantId: 'initech', agentName: 'bad name', actions: ['hold_stock'] }),
    ).rejects.toBeInstanceOf(Refusal);
    await expect(createAgentKey(t.db, { tenantId: 'initech', agentName: 'bot', actions: [] })).rejects.toBeInstanceOf(
      Refusal,
    );
  });

  it('creates a key shown once that authenticates as the agent of its tenant', async () => {
    const created = await createAgentKey(t.db, {
      tenantId: 'initech',
      agentName: 'initech-bot',
      actions: ['hold_stock'],
      grants: { warehouses: ['south'] },
    });
    expect(created.key).toMatch(/^cs_agent_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(await agentPrincipal(t.db, created.key)).toMatchObject({
      keyId: created.id,
      tenantId: 'initech',
      agentName: 'initech-bot',
      allowedActions: ['hold_stock'],
      grants: { warehouses: ['south'] },
    });
  });
});
