import { asc, eq, type SQL, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, auditHeads, auditPending, tenants } from '@/db/schema';
import { verifyStoredChains } from '@/lib/audit/verify-database';
import { setupTestDatabase } from '@/test/db';
import { numberedChange } from '@/test/fixtures/events';
import { databaseErrorText } from '@/test/queries';
import { chainPending } from './chainer';
import { recordStateChange } from './record';

/**
 * What the application's database role (`countersign_app`, the role the server, worker and CLI
 * connect as, and `t.db` here; `t.owner` reads what it left) can do to the audit trail (migration 0024;
 * docs/operations.md, "The two database roles"): write events and have them chained, nothing else. Every way it might
 * remove, alter, reorder or skip an event is tried here, and each must be refused, leaving the chain verifiable.
 */
const t = setupTestDatabase();

beforeAll(async () => {
  await t.db.insert(tenants).values(['victim', 'other', 'forged'].map((id) => ({ id, name: id })));
});

async function record(tenantId: string, count: number, from = 0): Promise<void> {
  for (let n = from; n < from + count; n++)
    await t.db.transaction((tx) => recordStateChange(tx, numberedChange(tenantId, 'prp_guarded', n)));
}

const pendingOf = (tenantId: string) =>
  t.owner.select().from(auditPending).where(eq(auditPending.tenantId, tenantId)).orderBy(asc(auditPending.id));
const eventsOf = (tenantId: string) =>
  t.owner.select().from(auditEvents).where(eq(auditEvents.tenantId, tenantId)).orderBy(asc(auditEvents.seq));
const headOf = async (tenantId: string) =>
  (await t.owner.select().from(auditHeads).where(eq(auditHeads.tenantId, tenantId)))[0];

/** What the database answers the application's role: 'accepted', or the error's text with its code. */
async function asApp(statements: SQL | SQL[]): Promise<string> {
  const list = Array.isArray(statements) ? statements : [statements];
  return t.db
    .transaction(async (tx) => {
      for (const statement of list) await tx.execute(statement);
    })
    .then(
      () => 'accepted',
      (error: unknown) => databaseErrorText(error),
    );
}

const REFUSED = /code=(42501|40001|22023)/;

/** Each attack the database did not refuse, with its answer: none, when all is well. */
async function acceptedOf(attacks: Record<string, SQL | SQL[]>): Promise<string[]> {
  const accepted = [];
  for (const [name, attack] of Object.entries(attacks)) {
    const answer = await asApp(attack);
    if (!REFUSED.test(answer)) accepted.push(`${name}: ${answer}`);
  }
  return accepted;
}

describe('the finding: a session setting opened audit_pending to DELETE', () => {
  it('set_config(countersign.chaining) then deleting or rewriting a pending row is refused to the application role', async () => {
    await record('victim', 3);
    const before = await pendingOf('victim');
    expect(before).toHaveLength(3);
    for (const attack of [
      sql`delete from audit_pending where tenant_id = 'victim'`,
      sql`update audit_pending set type = 'proposal.approved' where tenant_id = 'victim'`,
    ]) {
      const answer = await asApp([sql`select set_config('countersign.chaining', 'on', true)`, attack]);
      expect(answer).toMatch(/permission denied for table audit_pending/);
      expect(answer).toContain('code=42501');
    }
    expect(await pendingOf('victim')).toEqual(before);
  });
});

describe("every table of the evidence trail, today's and any a later migration adds", () => {
  /** The watch job's own progress, not evidence: the application updates it (lib/jobs/watch-audit-chain.ts). */
  const STATUS_TABLES = ['audit_chain_checks'];

  it('is one the application role may at most read and add to (a migration marks it: countersign_insert_only / countersign_read_only)', async () => {
    const tables = await t.db
      .select({
        name: sql<string>`c.relname`,
        changes: sql<boolean>`has_table_privilege(c.oid, 'UPDATE') or has_table_privilege(c.oid, 'DELETE') or has_table_privilege(c.oid, 'TRUNCATE')`,
      })
      .from(sql`pg_class c join pg_namespace n on n.oid = c.relnamespace`)
      .where(
        sql`n.nspname = 'public' and c.relkind in ('r', 'p') and (c.relname like 'audit%' or c.relname like '%checkpoint%')`,
      );
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining(['audit_events', 'audit_pending', 'audit_heads']),
    );
    expect(
      tables.filter((table) => table.changes && !STATUS_TABLES.includes(table.name)).map((table) => table.name),
    ).toEqual([]);
  });
});

describe('every other way the application role might remove or alter an event', () => {
  it('is refused: DML and TRUNCATE on each audit table, settings, roles, DDL, triggers, functions', async () => {
    await chainPending(t.db, 'victim');
    await record('victim', 2, 3);
    const pendingBefore = await pendingOf('victim');
    const eventsBefore = await eventsOf('victim');
    const headBefore = await headOf('victim');
    expect(eventsBefore).toHaveLength(3);
    expect(pendingBefore).toHaveLength(2);

    const attacks: Record<string, SQL | SQL[]> = {};
    for (const table of ['audit_events', 'audit_pending', 'audit_heads', 'audit_chaining']) {
      attacks[`delete ${table}`] = sql.raw(`delete from ${table}`);
      attacks[`update ${table}`] = sql.raw(
        `update ${table} set ${table === 'audit_chaining' ? 'xact = xact' : 'tenant_id = tenant_id'}`,
      );
      attacks[`truncate ${table}`] = sql.raw(`truncate ${table}`);
      attacks[`truncate ${table} cascade`] = sql.raw(`truncate ${table} cascade`);
      attacks[`alter ${table} disable triggers`] = sql.raw(`alter table ${table} disable trigger all`);
      attacks[`drop ${table}`] = sql.raw(`drop table ${table} cascade`);
      attacks[`lock ${table}`] = sql.raw(`select * from ${table} for update`);
      attacks[`rename ${table}`] = sql.raw(`alter table ${table} rename to ${table}_old`);
      attacks[`grant myself delete on ${table}`] = [
        sql.raw(`grant delete, update, truncate on ${table} to countersign_app`),
        sql.raw(`delete from ${table}`),
      ];
    }
    Object.assign(attacks, {
      'insert a forged event': sql`insert into audit_events (tenant_id, seq, type, actor_type, actor_id, data, occurred_at, prev_hash, hash) values ('victim', 4, 'proposal.approved', 'system', 'x', '{}', now(), 'sha256:x', 'sha256:y')`,
      'insert a forged head': sql`insert into audit_heads (tenant_id, seq, hash) values ('other', 7, 'sha256:forged')`,
      'mark the transaction as chaining': [
        sql`insert into audit_chaining values (pg_current_xact_id())`,
        sql`delete from audit_pending where tenant_id = 'victim'`,
      ],
      'set_config then delete, session-wide': [
        sql`select set_config('countersign.chaining', 'on', false)`,
        sql`delete from audit_pending`,
      ],
      'replication role skips triggers': sql`set session_replication_role = replica`,
      'become the owner': sql`set role postgres`,
      'become the owner by session authorization': sql`set session authorization postgres`,
      'create a function in public': sql`create function public.wipe() returns void language sql as 'delete from audit_pending'`,
      'replace the chaining function': sql`create or replace function audit_chain(tenant text, head_seq bigint, head_hash text, ids bigint[], hashes text[]) returns integer language sql as 'select 0'`,
      'drop the chaining function': sql`drop function audit_chain(text, bigint, text, bigint[], text[])`,
      'drop the pending trigger': sql`drop trigger audit_pending_chained_only on audit_pending`,
      'add a trigger': sql`create trigger wipe after insert on audit_events for each row execute function audit_pending_refuse_change()`,
      'change who owns the chaining function': sql`alter function audit_chain(text, bigint, text, bigint[], text[]) owner to countersign_app`,
      'make the chaining function invoker': sql`alter function audit_chain(text, bigint, text, bigint[], text[]) security invoker`,
      'mark a table insert-only (owner only)': sql`select countersign_insert_only('proposals')`,
      "grant itself a table through the owner's helper": sql`select countersign_app_may('audit_events', 'DELETE')`,
      'disable row security': sql`alter table audit_events disable row level security`,
    });

    expect(await acceptedOf(attacks)).toEqual([]);

    expect(await pendingOf('victim')).toEqual(pendingBefore);
    expect(await eventsOf('victim')).toEqual(eventsBefore);
    expect(await headOf('victim')).toEqual(headBefore);
    for (const table of ['audit_events', 'audit_pending', 'audit_heads']) {
      const rows = await t.db
        .select({
          changes: sql<boolean>`has_table_privilege(${table}, 'DELETE') or has_table_privilege(${table}, 'UPDATE') or has_table_privilege(${table}, 'TRUNCATE')`,
        })
        .from(sql`(select 1) as one`);
      expect(rows).toEqual([{ changes: false }]);
    }

    expect(await chainPending(t.db, 'victim')).toBe(2);
    expect((await verifyStoredChains(t.db, { tenant: 'victim' }))[0]).toMatchObject({ ok: true, through: { seq: 5 } });
  });

  it("calling audit_chain with forged arguments is refused: wrong tenant, another tenant's ids, a skipped row, a stale head, short or odd arrays", async () => {
    await record('victim', 2, 5);
    await record('other', 2);
    await chainPending(t.db, 'other');
    await record('other', 1, 2);
    const [victimPending, otherPending] = [await pendingOf('victim'), await pendingOf('other')];
    const head = (await headOf('victim'))!;
    const otherHead = (await headOf('other'))!;
    const ids = victimPending.map((row) => row.id);
    const hash = (n: number) => `sha256:${String(n).padStart(64, '0')}`;
    const chain = (tenant: string, seq: number, headHash: string, chainIds: number[], hashes: string[]) =>
      sql`select audit_chain(${tenant}, ${seq}, ${headHash}, ${sql.param(chainIds)}::bigint[], ${sql.param(hashes)}::text[])`;

    const forged: Record<string, SQL | SQL[]> = {
      "the victim's ids under another tenant": chain('other', otherHead.seq, otherHead.hash, ids, [hash(1), hash(2)]),
      "another tenant's ids under the victim": chain(
        'victim',
        head.seq,
        head.hash,
        otherPending.map((row) => row.id),
        [hash(1)],
      ),
      'skipping the oldest pending row': chain('victim', head.seq, head.hash, [ids[1]!], [hash(1)]),
      'the rows out of order': chain('victim', head.seq, head.hash, [ids[1]!, ids[0]!], [hash(1), hash(2)]),
      'one id twice': chain('victim', head.seq, head.hash, [ids[0]!, ids[0]!], [hash(1), hash(2)]),
      'a stale head seq': chain('victim', head.seq - 1, head.hash, ids, [hash(1), hash(2)]),
      'a stale head hash': chain('victim', head.seq, eventsOfHash(head.hash), ids, [hash(1), hash(2)]),
      'fewer hashes than ids': chain('victim', head.seq, head.hash, ids, [hash(1)]),
      'a null hash': sql`select audit_chain('victim', ${head.seq}, ${head.hash}, ${sql.param(ids)}::bigint[], array[${hash(1)}, null]::text[])`,
      'no ids': chain('victim', head.seq, head.hash, [], []),
      'more ids than are pending': chain(
        'victim',
        head.seq,
        head.hash,
        [...ids, ids[1]! + 1000],
        [hash(1), hash(2), hash(3)],
      ),
      'a tenant with no head': chain('nobody', 0, 'sha256:genesis', ids, [hash(1), hash(2)]),
      'calling it with the head lock of another tenant': [
        sql`select * from audit_chain_head('other')`,
        chain('other', otherHead.seq, otherHead.hash, ids, [hash(1), hash(2)]),
      ],
      'shadowing the tables with temporary ones': [
        sql`create temporary table audit_pending (like public.audit_pending)`,
        sql`create temporary table audit_heads (like public.audit_heads)`,
        chain('victim', head.seq, head.hash, [ids[1]!], [hash(1)]),
      ],
    };
    expect(await acceptedOf(forged)).toEqual([]);

    expect(await pendingOf('victim')).toEqual(victimPending);
    expect(await pendingOf('other')).toEqual(otherPending);
    expect(await headOf('victim')).toEqual(head);
    expect(await headOf('other')).toEqual(otherHead);
    expect(await chainPending(t.db, 'victim')).toBe(2);
    expect(await chainPending(t.db, 'other')).toBe(1);
    expect((await verifyStoredChains(t.db, { tenant: 'victim' }))[0]).toMatchObject({ ok: true, through: { seq: 7 } });
    expect((await verifyStoredChains(t.db, { tenant: 'other' }))[0]).toMatchObject({ ok: true, through: { seq: 3 } });
  });

  it('can at worst supply a wrong hash: the event is still chained from its own pending row, and verification names the break', async () => {
    await record('forged', 2);
    const pending = await pendingOf('forged');
    const answer = await asApp(
      sql`select audit_chain('forged', 0, 'sha256:genesis', ${sql.param(pending.map((row) => row.id))}::bigint[], array['sha256:made-up', 'sha256:made-up-too']::text[])`,
    );
    // audit_chain_head was never called: the head does not exist, so even this is refused…
    expect(answer).toContain('code=40001');
    const forgedHash = await asApp([
      sql`select * from audit_chain_head('forged')`,
      sql`select audit_chain('forged', 0, 'sha256:genesis', ${sql.param(pending.map((row) => row.id))}::bigint[], array['sha256:made-up', 'sha256:made-up-too']::text[])`,
    ]);
    expect(forgedHash).toBe('accepted');
    // …and once it is, the rows are exactly the pending rows, in order, and the chain is reported broken at the first.
    const events = await eventsOf('forged');
    expect(events.map((row) => [row.seq, row.type, row.data, row.occurredAt])).toEqual(
      pending.map((row, index) => [index + 1, row.type, row.data, row.occurredAt]),
    );
    expect((await verifyStoredChains(t.db, { tenant: 'forged' }))[0]).toMatchObject({
      ok: false,
      seq: 1,
      reason: 'hash_mismatch',
    });
  });
});

/** A hash that is well-formed and not the head's. */
function eventsOfHash(hash: string): string {
  return hash.endsWith('0') ? `${hash.slice(0, -1)}1` : `${hash.slice(0, -1)}0`;
}
