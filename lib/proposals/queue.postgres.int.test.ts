import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { ensureTenant, fixtureRows, insertFixtures } from '@/test/fixtures/queue';
import { decodeCursor } from './list-cursor';
import { QUEUE_PAGE_SIZE } from './queue';
import { type ListOptions, listProposals, proposalListQuery } from './status-page';
import { viewerRelation } from './viewer-relation';

/** The queue's queries are answered by their indexes on PostgreSQL, not by reading the table. */
const t = setupTestDatabase();
if (t.driver !== 'postgres') {
  throw new Error('queue.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}

beforeAll(async () => {
  await insertFixtures(t.db, 'acme', fixtureRows(121));
  // A realistic table: most proposals are long decided, across many tenants.
  for (let i = 0; i < 20; i++) await ensureTenant(t.db, `tenant_${i}`);
  await t.db.execute(sql`
    insert into proposals (id, tenant_id, agent_name, action, contract_version, status, payload, payload_hash, raw_candidate, gates, routing, risk, expires_at, created_at)
    select 'bulk_' || g, case when g % 5 = 0 then 'acme' else 'tenant_' || (g % 20) end, 'bulk-bot', 'hold_stock', 1,
           (case when g % 5 = 0 then 'approved' else 'pending_approval' end)::proposal_status,
           '{}'::jsonb, 'sha256:0', '{}', '[]'::jsonb, '{"rule":"bulk","policyVersion":1,"outcome":"needs_approval","approvals":1,"role":"approver"}'::jsonb,
           'low', now() + (g || ' seconds')::interval, now() - (g || ' seconds')::interval
    from generate_series(1, 30000) as g`);
  await t.owner.execute(sql`analyze proposals`);
});

async function plan(options: ListOptions): Promise<string> {
  const result = await t.db.execute(sql`explain ${proposalListQuery(t.db, 'acme', options)}`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, string>[];
  return rows.map((row) => Object.values(row)[0]).join('\n');
}

describe('queue query plans (PostgreSQL)', () => {
  it('answers the default queue (expiring first) from proposals_queue_idx, no Seq Scan on proposals', async () => {
    const text = await plan({ status: 'pending_approval', limit: QUEUE_PAGE_SIZE });
    expect(text).toContain('proposals_queue_idx');
    expect(text).not.toMatch(/Seq Scan on proposals/);
    expect(text).not.toMatch(/Sort\b/);
  });

  it('uses the index for the next page too (the row comparison is an index condition)', async () => {
    const first = await listProposals(t.db, 'acme', { status: 'pending_approval', limit: QUEUE_PAGE_SIZE });
    const text = await plan({
      status: 'pending_approval',
      limit: QUEUE_PAGE_SIZE,
      cursor: decodeCursor(first.nextCursor),
    });
    expect(text).toContain('proposals_queue_idx');
    expect(text).not.toMatch(/Seq Scan on proposals/);
  });

  it('answers newest and oldest first from proposals_queue_created_idx, without sorting the table', async () => {
    for (const sort of ['newest', 'oldest'] as const) {
      const first = await listProposals(t.db, 'acme', { status: 'pending_approval', sort, limit: QUEUE_PAGE_SIZE });
      for (const cursor of [undefined, decodeCursor(first.nextCursor)]) {
        const text = await plan({ status: 'pending_approval', sort, limit: QUEUE_PAGE_SIZE, cursor });
        expect(text).toContain('proposals_queue_created_idx');
        expect(text).not.toMatch(/Seq Scan on proposals/);
        // A small remainder may be read through a bitmap and sorted: the index still bounds it.
        if (!cursor) expect(text).not.toMatch(/Sort\b/);
      }
    }
  });

  it('answers each group (needs you, waiting on others) from the same index: the viewer conditions filter rows in index order', async () => {
    const { needsYou } = viewerRelation({ userId: 'usr_someone', role: 'approver' }, new Date());
    for (const where of [needsYou, sql`not ${needsYou}`]) {
      const text = await plan({ status: 'pending_approval', limit: QUEUE_PAGE_SIZE, where });
      expect(text).toContain('proposals_queue_idx');
      expect(text).not.toMatch(/Seq Scan on proposals/);
      expect(text).not.toMatch(/Sort\b/);
    }
  });
});
