import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { proposals } from '@/db/schema';
import { setupTestDatabase } from '@/test/db';
import { insertBulkAuditEvents } from '@/test/fixtures/audit';
import { explainPlan } from '@/test/queries';
import { decisionsPage, executionsOfQuery } from './history';

/**
 * The Decisions page reads the executions of the 50 proposals it shows: from indexes, never the
 * whole executions table (the pages bench found it read every execution on every page at 1M).
 */
const t = setupTestDatabase();
if (t.driver !== 'postgres') {
  throw new Error(
    'history-executions.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.',
  );
}

beforeAll(async () => {
  // 30,001 acme proposals (three in four succeeded, each with its command and execution) and another tenant's.
  for (const tenant of ['acme', 'tenant_1']) {
    await insertBulkAuditEvents(t.owner, tenant, 150_000, { proposals: true });
    await t.db.execute(sql`
      insert into commands (id, tenant_id, proposal_id, scope, kid, jws, idempotency_key, expires_at, consumed_at)
      select 'cmd_' || id, tenant_id, id, 'inventory', 'kid', 'jws', 'idem_' || id, decided_at, decided_at from proposals
      where tenant_id = ${tenant} and status = 'succeeded'`);
    await t.db.execute(sql`
      insert into executions (id, tenant_id, proposal_id, command_id, status, attempts, receipt)
      select 'exe_' || id, tenant_id, id, 'cmd_' || id, 'succeeded', 1, jsonb_build_object('id', 'rcpt_' || id) from proposals
      where tenant_id = ${tenant} and status = 'succeeded'`);
  }
  await t.owner.execute(sql`analyze`);
}, 300_000);

describe('the Decisions page and executions (PostgreSQL)', () => {
  it('shows each succeeded proposal with its execution and receipt, and no other tenant’s', async () => {
    const page = await decisionsPage(t.db, 'acme', {});
    const succeeded = page.items.filter((item) => item.status === 'succeeded');
    expect(succeeded.length).toBeGreaterThan(0);
    for (const item of succeeded)
      expect(item.execution).toEqual({ status: 'succeeded', receiptId: `rcpt_${item.id}`, errorCode: null });
    for (const item of page.items.filter((row) => row.status !== 'succeeded')) expect(item.execution).toBeNull();
    const [other] = await t.db
      .select({ id: proposals.id })
      .from(proposals)
      .where(and(eq(proposals.tenantId, 'tenant_1'), eq(proposals.status, 'succeeded')))
      .limit(1);
    expect(await executionsOfQuery(t.db, 'acme', [other!.id])).toEqual([]);
  });

  it('finds the executions of a page by index: no Seq Scan on executions', async () => {
    const page = await decisionsPage(t.db, 'acme', {});
    const plan = await explainPlan(
      t.db,
      executionsOfQuery(
        t.db,
        'acme',
        page.items.map((item) => item.id),
      ),
    );
    expect(plan, plan).not.toMatch(/Seq Scan on executions/);
    expect(plan, plan).toContain('executions_command_key');
  });
});
