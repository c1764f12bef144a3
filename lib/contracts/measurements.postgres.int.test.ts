import { and, count, gte, lte, type SQLWrapper, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { intakeAttempts } from '@/db/schema';
import { allActions } from '@/lib/actions/registry';
import { type PlanNode, setupCountingDatabase, setupTestDatabase } from '@/test/db';
import { explainPlan } from '@/test/queries';
import { seedWorld } from '@/test/world';
import { contractMeasurements, rateQuery, repairChainsQuery, versionCountsQuery } from './measurements';
import { MEASUREMENT_WINDOWS, type MeasurementWindow } from './windows';

/**
 * The Contracts page's measurements at a million intake attempts (PostgreSQL): answered from
 * intake_attempts_contract_idx, and every window's aggregates in a fixed number of statements that read
 * each row they need once (counted from their executed plans, not timed).
 */
const t = setupTestDatabase();
if (t.driver !== 'postgres') {
  throw new Error('measurements.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}
const counting = setupCountingDatabase(t, 'measurements.postgres.int.test.ts');

const NOW = new Date('2031-03-01T12:00:00Z');
const TOTAL = 1_000_000;
let tenantId: string;

beforeAll(async () => {
  const world = await seedWorld(t.db);
  const acme = await world.agent('acme');
  const globex = await world.agent('globex');
  tenantId = acme.tenantId;
  // 1,000,000 attempts over 90 days (the 30-day window holds a third): 60 % acme hold_stock, 20 % acme issue_refund, 20
  // % globex. Every sixth an outcome of each kind; every tenth a repair; v1 attempts carry a shadow verdict.
  await t.db.execute(sql`
    insert into intake_attempts (id, tenant_id, agent_key_id, agent_name, request_id, repair_of, root_request_id, action, contract_version,
                                 outcome, http_status, error_kind, error_code, issues, shadow, created_at)
    select 'att_bulk_' || g,
           case when g % 5 = 4 then ${globex.tenantId} else ${acme.tenantId} end,
           case when g % 5 = 4 then ${globex.keyId} else ${acme.keyId} end,
           'bulk-bot', 'req_' || g,
           case when g % 10 = 9 then 'req_' || (g - 1) end,
           'root_' || (g / 10),
           case when g % 5 = 3 then 'issue_refund' else 'hold_stock' end,
           case when g % 3 = 0 then 2 else 1 end,
           case when g % 6 in (0, 5) then 'accepted' else 'rejected' end,
           case g % 6 when 0 then 201 when 5 then 201 when 1 then 422 when 2 then 403 when 3 then 422 else 400 end,
           case g % 6 when 1 then 'schema' when 2 then 'authorization' when 3 then 'business_rule' when 4 then 'malformed' end,
           case g % 6 when 1 then 'contract_violation' when 2 then 'not_authorized' when 3 then 'hold_limit' when 4 then 'invalid_json' end,
           case when g % 6 = 1 then '[{"field":"quantity","code":"too_big"}]'::jsonb end,
           case when g % 3 <> 0 then jsonb_build_array(jsonb_build_object('version', 2, 'accepted', g % 4 = 0, 'codes', '[]'::jsonb)) end,
           ${NOW.toISOString()}::timestamptz - (g * interval '90 days' / ${TOTAL})
    from generate_series(1, ${TOTAL}) as g`);
  await t.owner.execute(sql`analyze intake_attempts`);
}, 600_000);

const explain = (query: SQLWrapper, analyze = false) => explainPlan(t.db, query, analyze);

const holdStock = allActions().find((a) => a.name === 'hold_stock')!;
const queriesOf = (window: MeasurementWindow) => {
  const since = new Date(NOW.getTime() - MEASUREMENT_WINDOWS[window].ms);
  return {
    counts: versionCountsQuery(t.db, tenantId, holdStock, since, NOW),
    chains: repairChainsQuery(t.db, tenantId, holdStock, since, NOW),
    rate: rateQuery(t.db, tenantId, holdStock, since, NOW, MEASUREMENT_WINDOWS[window].bucket),
  };
};
const WINDOWS = Object.keys(MEASUREMENT_WINDOWS) as MeasurementWindow[];

describe('contract measurements at 1M intake attempts (PostgreSQL)', () => {
  // The 30-day window holds a third of the table: there PostgreSQL rightly prefers a parallel
  // sequential read, and what it reads is counted (below).
  it.each(WINDOWS.filter((w) => w !== '30d'))(
    'the %s window reads an index (intake_attempts_contract_idx, or the tenant/time one), never the whole table',
    async (window) => {
      for (const [name, query] of Object.entries(queriesOf(window))) {
        const plan = await explain(query);
        if (process.env.SHOW_PLANS) console.log(window, name, plan);
        expect(plan, plan).toMatch(/Index (Only )?Scan (Backward )?(using|on) intake_attempts_(contract|tenant)_idx/);
        expect(plan, plan).not.toMatch(/Seq Scan on intake_attempts/);
      }
    },
  );

  it('answers the short windows from intake_attempts_contract_idx itself', async () => {
    for (const window of ['1h', '24h'] as const) {
      const plan = await explain(queriesOf(window).counts);
      expect(plan, plan).toMatch(/Index (Only )?Scan (using|on) intake_attempts_contract_idx/);
    }
  });

  /** Rows a plan read from intake_attempts: every scan of it, each loop (a parallel worker, a re-scan) counted. */
  const rowsRead = (node: PlanNode): number =>
    (node['Relation Name'] === 'intake_attempts'
      ? ((node['Actual Rows'] ?? 0) +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0) + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);

  // What makes the page slow is counted, not timed: the statements it sends (one per aggregate)
  // and the rows each reads. An index-served window reads no more rows than the window holds; the
  // 30-day one, a parallel sequential read, the table once (a re-scan per version or per bucket
  // would read it again).
  it.each(WINDOWS)(
    'computes every aggregate of the %s window in seven statements, each reading its rows once',
    async (window) => {
      const since = new Date(NOW.getTime() - MEASUREMENT_WINDOWS[window].ms);
      let measured: Awaited<ReturnType<typeof contractMeasurements>> | undefined;
      const statements = await counting.statementsSentBy(async () => {
        measured = await contractMeasurements(counting.db, tenantId, [holdStock], window, NOW);
      });
      expect(measured!.actions[0]!.versions.reduce((sum, v) => sum + v.attempts, 0)).toBeGreaterThan(0);
      // Six aggregates and the latest shadow verdicts: one statement each, however many versions, codes or buckets.
      expect(statements).toHaveLength(7);
      const [held] = await t.db
        .select({ n: count() })
        .from(intakeAttempts)
        .where(
          window === '30d' ? undefined : and(gte(intakeAttempts.createdAt, since), lte(intakeAttempts.createdAt, NOW)),
        );
      // A parallel plan reports each worker's rows as an average, rounded: 1 % covers that, never a second pass.
      const bound = Math.ceil(held!.n * 1.01);
      const reads: number[] = [];
      for (const statement of statements) reads.push(rowsRead(await counting.analyzedPlan(statement)));
      console.log(`[measurements] ${window}: rows read per statement ${reads.join(', ')} (bound ${bound})`);
      for (const read of reads) expect(read).toBeLessThanOrEqual(bound);
    },
  );
});
