/**
 * `DATABASE_URL=postgres://… npx tsx scripts/bench/audit-appends.ts`: how many state changes one
 * tenant records per second (issue 23, deliverable 4), at 1, 8 and 32 concurrent writers
 * (BENCH_SECONDS each, default 5). Each writer runs transactions that do what every state change
 * does besides its own UPDATE: `recordStateChange` with an outbox row. Writers are spread over four
 * connection pools (10 connections each, as the server opens), so 32 transactions are open at once.
 *
 * Where chaining is separate from the write (lib/events/chainer.ts), a chainer woken by the
 * writers' notifications runs meanwhile, as the worker's does, and the script reports the pending
 * backlog sampled every 50 ms and the mean time from commit to chained that it implies (Little's
 * law: backlog ÷ rate). At the end every chain is verified from genesis. The same file runs against
 * code from before that change (it then measures appends under the head lock).
 * A scratch database `cs_audit_<hex>` is created and dropped. Prints numbers, never payloads.
 */
import { count } from 'drizzle-orm';
import { type DatabaseHandle, openDatabase } from '@/db/client';
import { tenants } from '@/db/schema';
import { verifyStoredChains } from '@/lib/audit/verify-database';
import { recordStateChange } from '@/lib/events/record';
import { scratchDatabase } from '@/scripts/shared/scratch-database';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WRITERS = [1, 8, 32];
const POOLS = 4;
const TENANT = 'bench';

type Chaining = {
  pending(): Promise<number>;
  stop(): Promise<void>;
};

/** The chainer of the code under test, when it has one: woken by NOTIFY, like the worker's. */
async function startChaining(handle: DatabaseHandle): Promise<Chaining | undefined> {
  const chainer = await import('@/lib/jobs/chain-audit').catch(() => undefined);
  const events = await import('@/lib/events/append');
  const schema = await import('@/db/schema');
  if (!chainer || !('AUDIT_CHANNEL' in events) || !('auditPending' in schema)) return undefined;
  const { auditChainer } = chainer;
  const { AUDIT_CHANNEL } = events as { AUDIT_CHANNEL: string };
  const running = auditChainer(handle.db, (error) =>
    console.error('chaining failed', error instanceof Error ? error.name : typeof error),
  );
  const unlisten = await handle.listen(AUDIT_CHANNEL, (tenantId) => running.wake(tenantId));
  return {
    async pending() {
      const [row] = await handle.db.select({ n: count() }).from(schema.auditPending);
      return row?.n ?? 0;
    },
    async stop() {
      await unlisten();
      running.wake(TENANT);
      await running.idle();
    },
  };
}

async function measure(pools: DatabaseHandle[], writers: number, chaining: Chaining | undefined) {
  let committed = 0;
  let stopped = false;
  const samples: number[] = [];
  const sampler = (async () => {
    while (!stopped && chaining) {
      samples.push(await chaining.pending());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const { db } = pools[w % pools.length]!;
      for (let i = 0; performance.now() < deadline; i++) {
        await db.transaction((tx) =>
          recordStateChange(tx, {
            tenantId: TENANT,
            type: 'proposal.expired',
            actor: { type: 'system', id: 'bench' },
            proposalId: `prp_bench${w}`,
            payloadHash: 'sha256:00',
            reasonCode: 'expired',
            contractVersion: 1,
            data: { writer: w, n: i },
            outbox: { topic: 'proposal.expired', body: { proposalId: `prp_bench${w}`, status: 'expired' } },
          }),
        );
        committed++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  stopped = true;
  await sampler;
  const backlog = samples.length ? samples.reduce((a, b) => a + b, 0) / samples.length : 0;
  const rate = committed / elapsed;
  return {
    writers,
    perSecond: Math.round(rate),
    meanBacklog: Math.round(backlog),
    meanLagMs: chaining ? Math.round((backlog / rate) * 1000) : null,
  };
}

async function main() {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL (PostgreSQL) is required');
  const scratch = scratchDatabase(base, 'cs_audit');
  await scratch.create();
  const pools: DatabaseHandle[] = [];
  try {
    for (let i = 0; i < POOLS; i++) pools.push(await openDatabase({ url: scratch.url }));
    await pools[0]!.migrate();
    await pools[0]!.db.insert(tenants).values({ id: TENANT, name: 'Bench' });
    const chaining = await startChaining(pools[0]!);
    console.log(
      chaining
        ? 'events written pending, chained by a listening chainer'
        : 'events chained in the writing transaction (head lock)',
    );
    for (const writers of WRITERS) {
      const result = await measure(pools, writers, chaining);
      console.log(
        `${String(writers).padStart(2)} writers: ${result.perSecond} appends/s` +
          (result.meanLagMs === null
            ? ''
            : `, mean pending ${result.meanBacklog}, mean commit→chained ≈ ${result.meanLagMs} ms`),
      );
    }
    await chaining?.stop();
    const [report] = await verifyStoredChains(pools[0]!.db, { tenant: TENANT });
    console.log(
      report?.ok ? `chain verified through #${report.through.seq}` : `chain BROKEN: ${JSON.stringify(report)}`,
    );
  } finally {
    for (const pool of pools) await pool.close();
    await scratch.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
