import { type SQLWrapper, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { ensureTenant, fixtureRows, insertFixtures } from '@/test/fixtures/queue';
import { neighbourQuery } from './neighbours';
import { resourceHistoryQuery } from './resource-history';

/** j/k and "other proposals on this resource" are answered by their indexes, not by reading the table. */
const t = setupTestDatabase();
if (t.driver !== 'postgres') {
  throw new Error('neighbours.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}

beforeAll(async () => {
  await insertFixtures(t.db, 'acme', fixtureRows(121));
  for (let i = 0; i < 20; i++) await ensureTenant(t.db, `tenant_${i}`);
  await t.db.execute(sql`
    insert into proposals (id, tenant_id, agent_name, action, contract_version, status, payload, payload_hash, raw_candidate, gates, routing, risk, resource_key, expires_at, created_at)
    select 'bulk_' || g, case when g % 5 = 0 then 'acme' else 'tenant_' || (g % 20) end, 'bulk-bot', 'hold_stock', 1,
           (case when g % 7 = 0 then 'approved' else 'pending_approval' end)::proposal_status,
           '{}'::jsonb, 'sha256:0', '{}', '[]'::jsonb, '{"rule":"bulk","policyVersion":1,"outcome":"needs_approval","approvals":1,"role":"approver"}'::jsonb,
           'low', case when g % 10 = 0 then 'order:ord_hot' else 'order:ord_' || g end, now() + (g || ' seconds')::interval, now() - (g || ' seconds')::interval
    from generate_series(1, 30000) as g`);
  await t.owner.execute(sql`analyze proposals`);
});

async function plan(query: SQLWrapper): Promise<string> {
  const result = await t.db.execute(sql`explain ${query}`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, string>[];
  return rows.map((row) => Object.values(row)[0]).join('\n');
}

describe('proposal page query plans (PostgreSQL)', () => {
  it.each(['next', 'previous'] as const)(
    'finds the %s proposal through proposals_queue_idx, without a Seq Scan or a Sort',
    async (direction) => {
      // In the middle of acme's six thousand pending proposals: many on either side.
      const [anchor] = await t.db
        .execute<{ id: string; expiresAt: string }>(
          sql`select id, to_char(expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "expiresAt" from proposals where id = 'bulk_15000'`,
        )
        .then((r) => (Array.isArray(r) ? r : (r as { rows: { id: string; expiresAt: string }[] }).rows));
      for (const role of ['approver', 'viewer'] as const) {
        const text = await plan(
          neighbourQuery(t.db, 'acme', anchor!, direction, { userId: 'usr_x', role }, new Date()),
        );
        expect(text).toContain('proposals_queue_idx');
        expect(text).not.toMatch(/Seq Scan on proposals/);
        expect(text).not.toMatch(/Sort\b/);
      }
    },
  );

  it('lists the other proposals on a resource through proposals_resource_recent_idx', async () => {
    const text = await plan(resourceHistoryQuery(t.db, 'acme', 'order:ord_hot', 'bulk_10'));
    expect(text).toContain('proposals_resource_recent_idx');
    expect(text).not.toMatch(/Seq Scan on proposals/);
    expect(text).not.toMatch(/Sort\b/);
  });
});
