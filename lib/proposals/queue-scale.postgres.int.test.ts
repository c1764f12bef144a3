import { type SQLWrapper, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { insertBulk } from '@/test/fixtures/pending-bulk';
import { type AnalyzedNode, analyzedPlan, explainPlan, planNodes } from '@/test/queries';
import { PROPOSAL_SORTS } from './list-cursor';
import { QUEUE_COUNT_LIMIT, QUEUE_PAGE_SIZE, QUEUE_SCAN_LIMIT } from './queue';
import { countSplitQuery, pendingAgentsQuery, proposalListQuery, scanBoundQuery } from './status-page';
import { type QueueViewer, viewerRelation } from './viewer-relation';

/**
 * The queue at a few thousand pending proposals on PostgreSQL (issue 23): every query a queue page
 * sends reads an index range bounded by QUEUE_SCAN_LIMIT or QUEUE_COUNT_LIMIT, whatever the queue's
 * size, and none of them reads the table. Row counts from EXPLAIN ANALYZE, never times.
 */
const t = setupTestDatabase();
if (t.driver !== 'postgres') {
  throw new Error('queue-scale.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}

const PENDING = 2 * QUEUE_SCAN_LIMIT + 500;
const EDITOR = 'usr_scale_editor';
const approver: QueueViewer = { userId: 'usr_scale_approver', role: 'approver' };
const admin: QueueViewer = { userId: 'usr_scale_admin', role: 'admin' };
const every = (step: number, count: number) =>
  Array.from({ length: Math.floor(count / step) }, (_, i) => (i + 1) * step);

beforeAll(async () => {
  await insertBulk(t.db, 'acme', PENDING, { tag: 'p', admin: every(20, PENDING), agents: ['bot-a', 'bot-b', 'bot-c'] });
  // A long history, and other tenants' queues.
  await insertBulk(t.db, 'acme', 20_000, {
    tag: 'h',
    status: 'succeeded',
    agents: ['bot-a', 'bot-d'],
    createdFrom: '2029-01-01T00:00:00Z',
    expiresFrom: '2029-01-02T00:00:00Z',
  });
  for (const tenant of ['globex', 'initech']) await insertBulk(t.db, tenant, 5_000, { tag: tenant.slice(0, 2) });
  // A revision the editor made, and one made of it: neither is theirs to decide.
  await t.db.execute(
    sql`insert into users (id, email, name) values (${EDITOR}, 'editor@acme.test', 'Eddie Editor') on conflict do nothing`,
  );
  await t.db.execute(
    sql`update proposals set initiated_by_user_id = ${EDITOR}, parent_id = 'bp_000001' where id = 'bp_000002'`,
  );
  await t.db.execute(sql`update proposals set parent_id = 'bp_000002' where id = 'bp_000003'`);
  await t.owner.execute(sql`analyze proposals`);
}, 300_000);

/** The node reading proposals through `index`: how many index entries it read (kept or filtered out). */
function readThrough(plan: AnalyzedNode, index: string): number {
  const nodes = planNodes(plan).filter((node) => node['Index Name'] === index && !node['Subplan Name']);
  expect(nodes.length, JSON.stringify(plan)).toBeGreaterThan(0);
  return nodes.reduce(
    (sum, node) => sum + (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'],
    0,
  );
}

const planText = (query: SQLWrapper) => explainPlan(t.db, query);

describe('the queue at a few thousand pending proposals (PostgreSQL)', () => {
  it('counts the groups from at most QUEUE_COUNT_LIMIT + 1 pending proposals of proposals_queue_idx, without a Seq Scan, below the JIT threshold', async () => {
    for (const viewer of [approver, admin]) {
      const query = countSplitQuery(
        t.db,
        'acme',
        'pending_approval',
        {},
        viewerRelation(viewer, new Date()).needsYou,
        QUEUE_COUNT_LIMIT,
      );
      const text = await planText(query);
      expect(text).toContain('proposals_queue_idx');
      expect(text).not.toMatch(/Seq Scan on proposals/);
      // An estimate past jit_above_cost compiles the query first: 240 ms of a 255 ms count at 10,000 pending before
      // (issue 23).
      expect(text).not.toMatch(/JIT:/);
      expect(readThrough(await analyzedPlan(t.db, query), 'proposals_queue_idx')).toBeLessThanOrEqual(
        QUEUE_COUNT_LIMIT + 1,
      );
    }
  });

  it.each(PROPOSAL_SORTS)(
    'a page of an empty group (nothing waits on others for an admin), sorted %s, reads at most QUEUE_SCAN_LIMIT ' +
      'pending proposals',
    async (sort) => {
      const index = sort === 'expiring' ? 'proposals_queue_idx' : 'proposals_queue_created_idx';
      const options = {
        status: 'pending_approval' as const,
        sort,
        limit: QUEUE_PAGE_SIZE,
        scanLimit: QUEUE_SCAN_LIMIT,
      };
      const boundQuery = scanBoundQuery(t.db, 'acme', options);
      const boundText = await planText(boundQuery);
      expect(boundText).toContain(index);
      expect(boundText).not.toMatch(/Seq Scan on proposals/);
      const [bound] = await boundQuery;
      expect(bound).toBeDefined();
      const { needsYou } = viewerRelation(admin, new Date());
      const page = proposalListQuery(t.db, 'acme', { ...options, where: sql`not ${needsYou}`, until: bound });
      const text = await planText(page);
      expect(text).toContain(index);
      expect(text).not.toMatch(/Seq Scan on proposals/);
      const plan = await analyzedPlan(t.db, page);
      expect(plan['Actual Rows']).toBe(0);
      expect(readThrough(plan, index)).toBeLessThanOrEqual(QUEUE_SCAN_LIMIT);
    },
  );

  it("reads the viewer's revisions once, through proposals_initiated_idx, and looks each row up in them by hash", async () => {
    const { needsYou } = viewerRelation({ userId: EDITOR, role: 'approver' }, new Date());
    const text = await planText(
      proposalListQuery(t.db, 'acme', { status: 'pending_approval', limit: QUEUE_PAGE_SIZE, where: needsYou }),
    );
    expect(text).toContain('proposals_initiated_idx');
    expect(text).toMatch(/hashed SubPlan/);
  });

  it("answers the agent filter's choices with one probe of proposals_pending_agent_idx per agent", async () => {
    const query = sql`select array(${pendingAgentsQuery('acme')})`;
    const text = await planText(query);
    expect(text).toContain('proposals_pending_agent_idx');
    expect(text).not.toMatch(/Seq Scan on proposals/);
    const reads = planNodes(await analyzedPlan(t.db, query)).filter(
      (node) => node['Index Name'] === 'proposals_pending_agent_idx',
    );
    // Three agents with pending proposals: a probe for each, and one that finds no more.
    expect(reads.reduce((sum, node) => sum + node['Actual Loops'], 0)).toBeLessThanOrEqual(4);
  });
});
