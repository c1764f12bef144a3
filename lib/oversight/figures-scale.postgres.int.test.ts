import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { insertBulk } from '@/test/fixtures/pending-bulk';
import { analyzedPlan, explainPlan, planNodes } from '@/test/queries';
import { approverFiguresQuery } from './figures';

/**
 * The oversight figures over a long history on PostgreSQL: 20,000 decisions, one every 15 minutes
 * for 208 days, each with its decider's first look; a 7-day window reads its own decisions through
 * decisions_tenant_recent_idx and their first looks by primary key, never a whole table. Row counts from EXPLAIN
 * ANALYZE, never times.
 */
const t = setupTestDatabase();
if (t.driver !== 'postgres') {
  throw new Error('figures-scale.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}

const DECISIONS = 20_000;
const START = Date.parse('2026-01-01T00:00:00Z');
const at = (n: number) => new Date(START + n * 15 * 60_000);

beforeAll(async () => {
  await insertBulk(t.db, 'acme', DECISIONS, { tag: 'o', status: 'succeeded', createdFrom: '2026-01-01T00:00:00Z' });
  await t.db.execute(
    sql`insert into users (id, email, name) values ('usr_scale_decider', 'decider@acme.test', 'Dee Decider') on conflict do nothing`,
  );
  await t.db.execute(sql`
    insert into decisions (id, tenant_id, proposal_id, user_id, decision, payload_hash, created_at)
    select 'dec_' || g, 'acme', 'bo_' || lpad(g::text, 6, '0'), 'usr_scale_decider', 'approve', 'sha256:0', ${new Date(START).toISOString()}::timestamptz + g * interval '15 minutes'
    from generate_series(1, ${DECISIONS}::int) as g`);
  // A first look for every decision: the views table as large as the decisions table.
  await t.db.execute(sql`
    insert into proposal_views (tenant_id, proposal_id, user_id, first_seen_at, channel)
    select 'acme', 'bo_' || lpad(g::text, 6, '0'), 'usr_scale_decider', ${new Date(START).toISOString()}::timestamptz + g * interval '15 minutes' - interval '30 seconds', 'queue'
    from generate_series(1, ${DECISIONS}::int) as g`);
  await t.owner.execute(sql`analyze proposal_views`);
  await t.owner.execute(sql`analyze decisions`);
  await t.owner.execute(sql`analyze proposals`);
}, 300_000);

describe('the oversight figures over 20,000 decisions (PostgreSQL)', () => {
  it('reads only the window’s decisions, through decisions_tenant_recent_idx', async () => {
    const to = at(DECISIONS);
    const from = new Date(to.getTime() - 7 * 86_400_000);
    const query = approverFiguresQuery(t.db, 'acme', from, to);
    const text = await explainPlan(t.db, query);
    expect(text).toContain('decisions_tenant_recent_idx');
    expect(text).not.toMatch(/Seq Scan on decisions/);
    // Each decision's first look by primary key: never a scan of every look ever recorded.
    expect(text).not.toMatch(/Seq Scan on proposal_views/);
    expect(text).toContain('proposal_views_proposal_id_user_id_pk');
    const plan = await analyzedPlan(t.db, query);
    const read = planNodes(plan)
      .filter((node) => node['Index Name'] === 'decisions_tenant_recent_idx')
      .reduce(
        (sum, node) => sum + (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'],
        0,
      );
    // 7 days at 4 an hour: 672 decisions in the window.
    expect(read).toBe(7 * 24 * 4);
    const [row] = await query;
    expect(row).toMatchObject({
      decisions: 7 * 24 * 4,
      approvals: 7 * 24 * 4,
      dwellMeasured: 7 * 24 * 4,
      dwellP50Ms: 30_000,
    });
  });
});
