import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '@/db/client';
import { auditPending, tenants } from '@/db/schema';
import { verifyStoredChains } from '@/lib/audit/verify-database';
import { openReplicaHandle, setupCountingDatabase, setupTestDatabase } from '@/test/db';
import { numberedChange } from '@/test/fixtures/events';
import { auditChain } from '@/test/queries';
import { chainPending } from './chainer';
import { recordStateChange } from './record';

/**
 * What only real concurrency shows (PostgreSQL): state changes of one tenant no longer wait on one
 * another for the chain head, and chainers running at once on several pools chain every event
 * exactly once, each writer's events in the order they were committed.
 */
const t = setupTestDatabase();
const counting = setupCountingDatabase(t, 'chainer.postgres.int.test.ts');
const replicas: DatabaseHandle[] = [];

beforeAll(async () => {
  await t.db.insert(tenants).values(['side', 'many', 'budget'].map((id) => ({ id, name: id })));
  for (let i = 0; i < 2; i++) replicas.push(await openReplicaHandle(t.handle));
});
afterAll(async () => {
  for (const replica of replicas) await replica.close();
});

const change = (tenantId: string, proposalId: string, n: number) => numberedChange(tenantId, proposalId, n, true);

/** Resolves once some session of the test database waits for a lock (polled until `done` says stop). */
async function someoneWaitsOnALock(done: () => boolean): Promise<'blocked' | undefined> {
  while (!done()) {
    const [row] = await replicas[0]!.db
      .select({ n: count() })
      .from(sql`pg_stat_activity`)
      .where(sql`datname = current_database() and wait_event_type = 'Lock'`);
    if ((row?.n ?? 0) > 0) return 'blocked';
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return undefined;
}

async function pendingOf(tenantId: string): Promise<number> {
  const [row] = await t.db.select({ n: count() }).from(auditPending).where(eq(auditPending.tenantId, tenantId));
  return row?.n ?? 0;
}

describe('state changes of one tenant (PostgreSQL)', () => {
  it('commit while another one that already recorded its event is still open: nobody waits on the chain head', async () => {
    let recorded!: () => void;
    let release!: () => void;
    const firstRecorded = new Promise<void>((resolve) => (recorded = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const first = t.db.transaction(async (tx) => {
      await recordStateChange(tx, change('side', 'prp_open_long', 1));
      recorded();
      await released;
    });
    await firstRecorded;

    // Under the head lock this second commit would wait for the first: the watcher would see it blocked.
    let settled = false;
    const second = replicas[1]!.db
      .transaction((tx) => recordStateChange(tx, change('side', 'prp_quick', 2)))
      .then(() => 'committed' as const);
    const outcome = await Promise.race([second, someoneWaitsOnALock(() => settled)]);
    settled = true;
    release();
    await Promise.all([first, second]);
    expect(outcome).toBe('committed');

    expect(await pendingOf('side')).toBe(2);
  });

  it('chains a late-committing event after the ones committed before it, whatever their ids', async () => {
    let recorded!: () => void;
    let release!: () => void;
    const lateRecorded = new Promise<void>((resolve) => (recorded = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    await chainPending(t.db, 'side');
    const late = t.db.transaction(async (tx) => {
      await recordStateChange(tx, change('side', 'prp_late', 1));
      recorded();
      await released;
    });
    await lateRecorded;
    await replicas[1]!.db.transaction((tx) => recordStateChange(tx, change('side', 'prp_early', 2)));
    // The open transaction's row is invisible: only the committed one is chained now.
    expect(await chainPending(t.db, 'side')).toBe(1);
    release();
    await late;
    expect(await chainPending(t.db, 'side')).toBe(1);
    const chain = await auditChain(t.db, 'side');
    expect(chain.slice(-2).map((row) => row.proposalId)).toEqual(['prp_early', 'prp_late']);
    const [report] = await verifyStoredChains(t.db, { tenant: 'side' });
    expect(report).toMatchObject({ ok: true, through: { seq: 4 } });
  });
});

describe("a row committing between the chainer's read and audit_chain (PostgreSQL)", () => {
  it('is refused by audit_chain as a skipped row, and the batch is read and chained again, in id order', async () => {
    await t.owner.insert(tenants).values({ id: 'between', name: 'between' });
    let recorded!: () => void;
    let release!: () => void;
    const lateRecorded = new Promise<void>((resolve) => (recorded = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    // The smaller id, written first and committed last.
    const late = replicas[0]!.db.transaction(async (tx) => {
      await recordStateChange(tx, change('between', 'prp_smaller_id', 1));
      recorded();
      await released;
    });
    await lateRecorded;
    await t.db.transaction((tx) => recordStateChange(tx, change('between', 'prp_larger_id', 2)));

    // The chainer's database, its first audit_chain call sent only once the smaller id committed.
    let calls = 0;
    const interposed = new Proxy(t.db, {
      get(target, property) {
        if (property !== 'transaction') return Reflect.get(target, property);
        return (run: (tx: typeof t.db) => Promise<unknown>, config?: Parameters<typeof target.transaction>[1]) =>
          target.transaction(
            (tx) =>
              run(
                new Proxy(tx, {
                  get(inner, name) {
                    if (name !== 'execute') return Reflect.get(inner, name);
                    return async (query: Parameters<typeof inner.execute>[0]) => {
                      if (calls++ === 0) {
                        release();
                        await late;
                      }
                      return inner.execute(query);
                    };
                  },
                }),
              ),
            config,
          );
      },
    });
    expect(await chainPending(interposed, 'between')).toBe(2);
    expect(calls).toBe(2);
    expect((await auditChain(t.db, 'between')).map((row) => row.proposalId)).toEqual([
      'prp_smaller_id',
      'prp_larger_id',
    ]);
    expect((await verifyStoredChains(t.db, { tenant: 'between' }))[0]).toMatchObject({ ok: true, through: { seq: 2 } });
  });
});

describe('chainers running at once (PostgreSQL)', () => {
  it('chain every event of concurrent writers exactly once, each writer’s events in commit order', async () => {
    const WRITERS = 8;
    const EACH = 40;
    let writing = true;
    const pools = [t.db, replicas[0]!.db, replicas[1]!.db];
    // Three chainers on three pools, small batches so many transactions interleave with the writes.
    const chainers = pools.map(async (db) => {
      let runs = 0;
      while (writing) {
        await chainPending(db, 'many', 7);
        runs++;
      }
      return runs;
    });
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const db = pools[w % pools.length]!;
        for (let n = 0; n < EACH; n++)
          await db.transaction((tx) => recordStateChange(tx, change('many', `prp_writer${w}`, n)));
      }),
    );
    writing = false;
    expect(Math.min(...(await Promise.all(chainers)))).toBeGreaterThan(0);
    await chainPending(t.db, 'many');

    expect(await pendingOf('many')).toBe(0);
    const chain = await auditChain(t.db, 'many');
    expect(chain.map((row) => row.seq)).toEqual(Array.from({ length: WRITERS * EACH }, (_, i) => i + 1));
    for (let w = 0; w < WRITERS; w++) {
      const mine = chain.filter((row) => row.proposalId === `prp_writer${w}`).map((row) => row.data.n);
      expect(mine, `writer ${w}`).toEqual(Array.from({ length: EACH }, (_, n) => n));
    }
    const [report] = await verifyStoredChains(t.db, { tenant: 'many' });
    expect(report).toMatchObject({ ok: true, through: { seq: WRITERS * EACH } });
  });
});

describe('statements (PostgreSQL)', () => {
  it('records a state change in two statements sent together, and finds nothing to chain in one', async () => {
    const recorded = await counting.statementsSentBy(() =>
      counting.db.transaction((tx) => recordStateChange(tx, change('budget', 'prp_budget', 1))),
    );
    expect(recorded).toHaveLength(2);
    expect(recorded.some((statement) => /audit_heads/.test(statement.query))).toBe(false);
    await chainPending(t.db, 'budget');
    expect(await counting.statementsOf(() => chainPending(counting.db, 'budget'))).toBe(1);
  });
});
