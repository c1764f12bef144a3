import { type SQLWrapper, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { ensureTenant } from '@/test/fixtures/queue';
import { explainPlan } from '@/test/queries';
import { LIST_PAGE_SIZE, type ProposalListView, proposalListPage, proposalsListQuery, resolveSearch } from './list';
import { decodeCursor } from './list-cursor';

/** The Proposals list's pages are index ranges on PostgreSQL: no Seq Scan on proposals, no Sort, first page or next. */
const t = setupTestDatabase();
if (t.driver !== 'postgres') {
  throw new Error('list.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}

const DECIDER = 'usr_listdecider';

beforeAll(async () => {
  for (let i = 0; i < 10; i++) await ensureTenant(t.db, `tenant_${i}`);
  await ensureTenant(t.db, 'acme');
  await t.db.execute(
    sql`insert into users (id, email, name) values (${DECIDER}, 'decider@acme.test', 'Dana Decider') on conflict do nothing`,
  );
  await t.db.execute(
    sql`insert into memberships (tenant_id, user_id, role) values ('acme', ${DECIDER}, 'approver') on conflict do nothing`,
  );
  // 200,000 proposals, 100,000 of them acme's: mostly succeeded, a few of each other status, 2,000 orders, 300 SKUs, 12
  // agents.
  await t.db.execute(sql`
    insert into proposals (id, tenant_id, agent_name, action, contract_version, status, payload, payload_hash, raw_candidate, gates, routing, risk, resource_key, expires_at, created_at)
    select 'prp_list' || g, case when g % 2 = 0 then 'acme' else 'tenant_' || (g % 10) end, 'bot-' || (g % 12),
           case when g % 3 = 0 then 'hold_stock' else 'issue_refund' end, 1,
           (case when g % 50 = 2 then 'stale' when g % 50 = 4 then 'rejected' when g % 50 = 6 then 'pending_approval' when g % 50 = 8 then 'expired' else 'succeeded' end)::proposal_status,
           case when g % 3 = 0 then jsonb_build_object('args', jsonb_build_object('sku', 'sku-' || (g % 300), 'quantity', 1))
                else jsonb_build_object('args', jsonb_build_object('orderId', 'ord_' || (g % 2000), 'amountMinor', 1500, 'currency', 'EUR', 'reason', 'bulk')) end,
           'sha256:0', '{}', '[]'::jsonb, '{"rule":"bulk","policyVersion":1,"outcome":"needs_approval","approvals":1,"role":"approver"}'::jsonb, 'low',
           case when g % 3 = 0 then 'sku:sku-' || (g % 300) else 'order:ord_' || (g % 2000) end,
           timestamptz '2030-01-02 00:00:00+00' + (g || ' seconds')::interval, timestamptz '2030-01-01 00:00:00+00' + (g || ' seconds')::interval
    from generate_series(1, 200000) as g`);
  // Every 20th of acme's is decided by the decider.
  await t.db.execute(sql`
    insert into decisions (id, tenant_id, proposal_id, user_id, decision, payload_hash)
    select 'dec_list' || g, 'acme', 'prp_list' || g, ${DECIDER}, 'approve', 'sha256:0' from generate_series(2, 200000, 40) as g`);
  await t.owner.execute(sql`analyze proposals`);
  await t.owner.execute(sql`analyze decisions`);
}, 300_000);

const explain = (query: SQLWrapper) => explainPlan(t.db, query);

const CASES: [string, ProposalListView, string][] = [
  ['every status', {}, 'proposals_recent_idx'],
  ['a common status', { status: 'succeeded' }, 'proposals_queue_created_idx'],
  ['a rare status', { status: 'stale' }, 'proposals_queue_created_idx'],
  ['an order id', { q: 'ord_1234' }, 'proposals_resource_recent_idx'],
  ['a SKU', { q: 'sku-42' }, 'proposals_resource_recent_idx'],
  ['an agent', { q: 'bot-6' }, 'proposals_agent_recent_idx'],
  ['a decider', { q: 'decider@acme.test' }, 'proposals_recent_idx'],
];

describe('Proposals list query plans at 200,000 proposals (PostgreSQL)', () => {
  it.each(CASES)('%s: first and next page from %s, no Seq Scan or Sort on proposals', async (_what, view, index) => {
    const first = await proposalListPage(t.db, 'acme', view);
    expect(first.items.length).toBe(LIST_PAGE_SIZE);
    expect(first.nextCursor).not.toBeNull();
    const target = view.q ? await resolveSearch(t.db, 'acme', view.q) : undefined;
    for (const cursor of [undefined, decodeCursor(first.nextCursor)]) {
      const plan = await explain(
        proposalsListQuery(t.db, 'acme', { status: view.status, target, cursor, limit: LIST_PAGE_SIZE }),
      );
      if (process.env.SHOW_PLANS) console.log(_what, plan);
      expect(plan, plan).toContain(index);
      expect(plan, plan).not.toMatch(/Seq Scan on proposals/);
      expect(plan, plan).not.toMatch(/^\s*(->\s*)?Sort\b/m);
    }
  });
});
