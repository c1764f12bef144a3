import { asc, count, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { DatabaseHandle } from '@/db/client';
import { auditEvents, auditHeads, auditPending, tenants } from '@/db/schema';
import { verifyStoredChains } from '@/lib/audit/verify-database';
import { startWorker } from '@/lib/jobs/worker';
import { setupTestDatabase } from '@/test/db';
import { numberedChange } from '@/test/fixtures/events';
import { auditChain, databaseErrorText } from '@/test/queries';
import { AUDIT_CHANNEL, appendAudit } from './append';
import { chainPending } from './chainer';
import { recordStateChange } from './record';

/**
 * Events are written unchained in the state change's transaction and linked into the tenant's
 * chain by the chainer (docs/evidence.md, "How events are chained"), on PGlite and PostgreSQL.
 */
const t = setupTestDatabase();
const HOUR = 3_600_000;

beforeAll(async () => {
  await t.db
    .insert(tenants)
    .values(['order', 'batches', 'guard', 'crash', 'woken', 'tamper'].map((id) => ({ id, name: id })));
});

/** One state change per transaction, each committed before the next begins (as one proposal's are). */
async function recordInTurn(tenantId: string, proposalId: string, times: number): Promise<void> {
  for (let n = 0; n < times; n++)
    await t.db.transaction((tx) => recordStateChange(tx, numberedChange(tenantId, proposalId, n)));
}

async function pendingOf(tenantId: string): Promise<number> {
  const [row] = await t.db.select({ n: count() }).from(auditPending).where(eq(auditPending.tenantId, tenantId));
  return row?.n ?? 0;
}

async function headOf(tenantId: string) {
  const [head] = await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, tenantId));
  return head;
}

async function verified(tenantId: string) {
  const [report] = await verifyStoredChains(t.db, { tenant: tenantId });
  return report;
}

const numbers = (rows: { data: Record<string, unknown> }[]) => rows.map((row) => row.data.n);

describe('recording a state change', () => {
  it('writes its event pending, touching neither the chain nor its head, and the chainer links it in order', async () => {
    await recordInTurn('order', 'prp_first', 3);
    await recordInTurn('order', 'prp_second', 2);
    expect(await pendingOf('order')).toBe(5);
    expect(await t.db.select().from(auditEvents).where(eq(auditEvents.tenantId, 'order'))).toEqual([]);
    expect(await headOf('order')).toBeUndefined();

    expect(await chainPending(t.db, 'order')).toBe(5);
    expect(await pendingOf('order')).toBe(0);
    const chain = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.tenantId, 'order'))
      .orderBy(asc(auditEvents.seq));
    expect(chain.map((row) => [row.seq, row.proposalId, row.data.n])).toEqual([
      [1, 'prp_first', 0],
      [2, 'prp_first', 1],
      [3, 'prp_first', 2],
      [4, 'prp_second', 0],
      [5, 'prp_second', 1],
    ]);
    expect(await headOf('order')).toMatchObject({ seq: 5, hash: chain.at(-1)!.hash });
    expect(await verified('order')).toMatchObject({ ok: true, through: { seq: 5 } });
    // Nothing left: a second run changes nothing.
    expect(await chainPending(t.db, 'order')).toBe(0);
    expect(await headOf('order')).toMatchObject({ seq: 5 });
  });

  it('chains a long backlog in batches, in order, continuing from the head', async () => {
    await recordInTurn('batches', 'prp_batch', 4);
    await chainPending(t.db, 'batches');
    await recordInTurn('batches', 'prp_batch_more', 25);
    expect(await chainPending(t.db, 'batches', 10)).toBe(25);
    const chain = await auditChain(t.db, 'batches');
    expect(chain.map((row) => row.seq)).toEqual(Array.from({ length: 29 }, (_, i) => i + 1));
    expect(numbers(chain.slice(4))).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(await verified('batches')).toMatchObject({ ok: true, through: { seq: 29 } });
  });

  it('refuses to change or remove a pending event except by chaining it, even to the owner, whatever the session sets', async () => {
    await appendAudit(t.db, {
      tenantId: 'guard',
      type: 'agent_key.revoked',
      actor: { type: 'system', id: 'test' },
      data: { n: 1 },
    });
    const before = await t.db.select().from(auditPending).where(eq(auditPending.tenantId, 'guard'));
    // The owner's view (PGlite's one user): the trigger, not a privilege, says no. The application's
    // role has no UPDATE or DELETE here at all (app-role.postgres.int.test.ts).
    const escape = sql`select set_config('countersign.chaining', 'on', true)`;
    for (const statements of [
      [sql`update audit_pending set data = '{"n":2}'::jsonb where tenant_id = 'guard'`],
      [sql`delete from audit_pending where tenant_id = 'guard'`],
      [sql`truncate audit_pending`],
      [escape, sql`delete from audit_pending where tenant_id = 'guard'`],
      [escape, sql`update audit_pending set data = '{"n":2}'::jsonb where tenant_id = 'guard'`],
    ]) {
      const text = await t.owner
        .transaction(async (tx) => {
          for (const statement of statements) await tx.execute(statement);
        })
        .then(
          () => 'accepted',
          (error: unknown) => databaseErrorText(error),
        );
      expect(text).toMatch(/audit_pending rows leave only by being chained/);
      expect(text).toContain('code=42501');
    }
    expect(await t.db.select().from(auditPending).where(eq(auditPending.tenantId, 'guard'))).toEqual(before);
    expect(await chainPending(t.db, 'guard')).toBe(1);
  });
});

describe('the worker', () => {
  it('chains, on its sweep, events whose writer ended before they were chained (no notification heard)', async () => {
    // Written while no worker listened: as if the process had died between commit and chaining.
    await recordInTurn('crash', 'prp_crash', 3);
    expect(await pendingOf('crash')).toBe(3);
    const errors: string[] = [];
    const worker = startWorker(t.db, {
      executorBaseUrl: 'http://127.0.0.1:9',
      intervals: {
        dispatch: HOUR,
        expiry: HOUR,
        reconciliation: HOUR,
        notifications: HOUR,
        reminders: HOUR,
        recheck: HOUR,
        auditWatch: HOUR,
        claims: HOUR,
      },
      log: () => {},
      logError: (line) => errors.push(line),
    });
    try {
      await vi.waitFor(async () => expect(await pendingOf('crash')).toBe(0), { timeout: 20_000, interval: 10 });
    } finally {
      await worker.stop();
    }
    expect(numbers(await auditChain(t.db, 'crash'))).toEqual([0, 1, 2]);
    expect(await verified('crash')).toMatchObject({ ok: true, through: { seq: 3 } });
    expect(errors).toEqual([]);
  });

  it('chains a committed event when its notification arrives, not at the (hourly) sweep', async () => {
    const errors: string[] = [];
    // Notifications sent before LISTEN took effect are lost (the sweep's work): write after it has.
    let listening!: () => void;
    const ready = new Promise<void>((resolve) => (listening = resolve));
    const listen: DatabaseHandle['listen'] = async (channel, onNotify) => {
      const stop = await t.handle.listen(channel, onNotify);
      if (channel === AUDIT_CHANNEL) listening();
      return stop;
    };
    const worker = startWorker(t.db, {
      executorBaseUrl: 'http://127.0.0.1:9',
      intervals: {
        dispatch: HOUR,
        expiry: HOUR,
        reconciliation: HOUR,
        notifications: HOUR,
        reminders: HOUR,
        recheck: HOUR,
        auditWatch: HOUR,
        claims: HOUR,
        auditChain: HOUR,
      },
      listen,
      log: () => {},
      logError: (line) => errors.push(line),
    });
    try {
      await ready;
      for (let n = 0; n < 3; n++) {
        await t.db.transaction((tx) => recordStateChange(tx, numberedChange('woken', 'prp_woken', n)));
        // vitest's waitFor gives up long before an hourly sweep could come round.
        await vi.waitFor(async () => expect(await pendingOf('woken')).toBe(0), { timeout: 20_000, interval: 10 });
        expect(await headOf('woken')).toMatchObject({ seq: n + 1 });
      }
    } finally {
      await worker.stop();
    }
    expect(await verified('woken')).toMatchObject({ ok: true, through: { seq: 3 } });
    expect(errors).toEqual([]);
  });
});

describe('verification', () => {
  it('covers events still pending, and still finds a chained row changed behind the database’s back', async () => {
    await recordInTurn('tamper', 'prp_tamper', 3);
    // The verifier chains what is pending first: its report covers every committed event.
    expect(await verified('tamper')).toMatchObject({ ok: true, through: { seq: 3 } });
    await recordInTurn('tamper', 'prp_tamper_more', 1);
    await t.owner.execute(sql`alter table audit_events disable trigger audit_events_append_only`);
    try {
      await t.owner.execute(
        sql`update audit_events set data = '{"n":7}'::jsonb where tenant_id = 'tamper' and seq = 2`,
      );
    } finally {
      await t.owner.execute(sql`alter table audit_events enable trigger audit_events_append_only`);
    }
    expect(await verified('tamper')).toMatchObject({ ok: false, seq: 2, reason: 'hash_mismatch' });
    expect(await pendingOf('tamper')).toBe(0);
    expect(await headOf('tamper')).toMatchObject({ seq: 4 });
  });
});
