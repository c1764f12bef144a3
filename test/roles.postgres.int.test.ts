import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '@/db/client';
import { APP_ROLE, OWNER_ROLE, rolesSql } from '@/db/roles';
import { auditPending, tenants } from '@/db/schema';
import { verifyStoredChains } from '@/lib/audit/verify-database';
import { chainPending } from '@/lib/events/chainer';
import { recordStateChange } from '@/lib/events/record';
import { runCli } from '@/test/cli';
import { ownerDatabaseUrl, setupTestDatabase } from '@/test/db';
import { numberedChange } from '@/test/fixtures/events';
import { databaseErrorText } from '@/test/queries';

/**
 * The upgrade path of docs/operations.md ("The two database roles"): an install migrated by one
 * role (here the superuser, as compose.yaml used to run everything) is handed to the owner role by
 * the SQL `npm run cli -- db:roles` prints; the application's role then works, later migrations
 * the owner runs give it the same grants, and one line makes a new table insert-only for it.
 */
const t = setupTestDatabase();
const handles: DatabaseHandle[] = [];
let owner: DatabaseHandle;
let app: DatabaseHandle;

const asRole = (role: string) => {
  const url = new URL(ownerDatabaseUrl(t.handle));
  url.username = role;
  return url.toString();
};

beforeAll(async () => {
  // What an operator pipes into psql: the CLI's own output (it opens no database: the folder stays unmade).
  const noDatabase = path.join(os.tmpdir(), `countersign-no-db-${randomBytes(4).toString('hex')}`);
  const printed = await runCli(['db:roles', '--database', t.handle.name!], noDatabase);
  expect(printed).toMatchObject({ code: 0, stdout: rolesSql({ database: t.handle.name! }) + '\n' });
  expect(fs.existsSync(noDatabase)).toBe(false);
  const superuser = postgres(ownerDatabaseUrl(t.handle), { max: 1, onnotice: () => {} });
  try {
    await superuser.unsafe(printed.stdout);
  } finally {
    await superuser.end({ timeout: 5 });
  }
  owner = await openDatabase({ url: asRole(OWNER_ROLE) });
  app = t.handle;
  handles.push(owner);
}, 60_000);
afterAll(async () => {
  for (const handle of handles) await handle.close();
});

const refusal = (run: Promise<unknown>) =>
  run.then(
    () => 'accepted',
    (error: unknown) => databaseErrorText(error),
  );

describe('an existing install handed to the owner role by db:roles', () => {
  it('belongs to the owner, table by table, and the application role finds nothing to migrate', async () => {
    const notOwned = await t.db
      .select({ name: sql<string>`c.relname` })
      .from(sql`pg_class c join pg_namespace n on n.oid = c.relnamespace`)
      .where(
        sql`n.nspname in ('public', 'drizzle') and c.relkind in ('r', 'S') and pg_get_userbyid(c.relowner) <> ${OWNER_ROLE}`,
      );
    expect(notOwned).toEqual([]);
    const chainOwners = await t.db
      .select({ owner: sql<string>`pg_get_userbyid(proowner)` })
      .from(sql`pg_proc`)
      .where(sql`proname in ('audit_chain', 'audit_chain_head')`);
    expect(chainOwners).toEqual([{ owner: OWNER_ROLE }, { owner: OWNER_ROLE }]);

    await app.migrate();
    await owner.migrate();
  });

  it("records and chains as the application role; the owner's function does the chaining", async () => {
    await owner.db.insert(tenants).values({ id: 'handed', name: 'Handed' });
    for (let n = 0; n < 3; n++)
      await app.db.transaction((tx) => recordStateChange(tx, numberedChange('handed', 'prp_handed', n)));
    expect(await chainPending(app.db, 'handed')).toBe(3);
    expect(await app.db.select().from(auditPending).where(eq(auditPending.tenantId, 'handed'))).toEqual([]);
    expect((await verifyStoredChains(app.db, { tenant: 'handed' }))[0]).toMatchObject({
      ok: true,
      through: { seq: 3 },
    });
  });

  it("gives a later migration's tables to the application role, and one line makes one insert-only", async () => {
    // What a later migration, run by the owner, writes.
    await owner.db.execute(
      sql`create table audit_later_nodes (tenant_id text not null, id bigint generated always as identity, hash text not null)`,
    );
    await owner.db.execute(sql`select countersign_insert_only('audit_later_nodes')`);
    await owner.db.execute(sql`create table later_settings (tenant_id text primary key, value text not null)`);

    expect(
      await refusal(app.db.execute(sql`insert into audit_later_nodes (tenant_id, hash) values ('handed', 'sha256:1')`)),
    ).toBe('accepted');
    expect(await refusal(app.db.execute(sql`select * from audit_later_nodes`))).toBe('accepted');
    for (const attack of [
      sql`delete from audit_later_nodes`,
      sql`update audit_later_nodes set hash = 'sha256:2'`,
      sql`truncate audit_later_nodes`,
    ]) {
      expect(await refusal(app.db.execute(attack))).toMatch(
        /permission denied for table audit_later_nodes.*code=42501/,
      );
    }
    for (const statement of [
      sql`insert into later_settings values ('handed', 'a')`,
      sql`update later_settings set value = 'b'`,
      sql`delete from later_settings`,
    ]) {
      expect(await refusal(app.db.execute(statement))).toBe('accepted');
    }
    expect(await refusal(app.db.execute(sql`truncate later_settings`))).toMatch(/code=42501/);
  });

  it('refuses to start the application role on a database with a migration missing, saying who must apply it', async () => {
    await owner.db.execute(
      sql`delete from drizzle.__drizzle_migrations where created_at = (select max(created_at) from drizzle.__drizzle_migrations)`,
    );
    const answer = await refusal(
      openDatabase({ url: asRole(APP_ROLE) }).then(async (fresh) => {
        handles.push(fresh);
        await fresh.migrate();
      }),
    );
    expect(answer).toMatch(
      /user "countersign_app" may not apply the database migrations .*npm run migrate with MIGRATION_DATABASE_URL/,
    );
  });
});

describe('a new install, as compose.yaml makes it (docker/postgres-init)', () => {
  it('is migrated by the owner role, which needs no superuser, and used by the application role', async () => {
    const name = `cs_test_${randomBytes(8).toString('hex')}`;
    const server = postgres(ownerDatabaseUrl(t.handle), { max: 1, onnotice: () => {} });
    const onDatabase = (role: string) => {
      const url = new URL(asRole(role));
      url.pathname = `/${name}`;
      return url.toString();
    };
    try {
      await server.unsafe(`CREATE DATABASE "${name}" OWNER ${OWNER_ROLE}`);
      const superuser = postgres(onDatabase('postgres'), { max: 1, onnotice: () => {} });
      try {
        await superuser.unsafe(
          `ALTER SCHEMA public OWNER TO ${OWNER_ROLE}; REVOKE ALL ON DATABASE "${name}" FROM PUBLIC; GRANT CONNECT ON DATABASE "${name}" TO ${APP_ROLE}`,
        );
      } finally {
        await superuser.end({ timeout: 5 });
      }
      const fresh = await openDatabase({ url: onDatabase(OWNER_ROLE) });
      const freshApp = await openDatabase({ url: onDatabase(APP_ROLE) });
      try {
        await fresh.migrate();
        await freshApp.migrate();
        await fresh.db.insert(tenants).values({ id: 'new', name: 'New' });
        await freshApp.db.transaction((tx) => recordStateChange(tx, numberedChange('new', 'prp_new', 1)));
        expect(await chainPending(freshApp.db, 'new')).toBe(1);
        expect(await refusal(freshApp.db.execute(sql`delete from audit_events`))).toMatch(/code=42501/);
        expect(await refusal(freshApp.db.execute(sql`create table public.mine (id int)`))).toMatch(
          /permission denied for schema public.*code=42501/,
        );
      } finally {
        await Promise.all([fresh.close(), freshApp.close()]);
      }
    } finally {
      await server.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await server.end({ timeout: 5 });
    }
  });
});
