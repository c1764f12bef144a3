import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { setupCountingDatabase, setupTestDatabase } from '@/test/db';
import { insertBulk } from '@/test/fixtures/pending-bulk';
import { submitAs } from '@/test/intake';
import { type AnalyzedNode, analyzedPlan, explainPlan, planNodes } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { candidatesQuery, recheckOpen } from './recheck-open';

/**
 * The re-check sweep's cost per open proposal (PostgreSQL): each proposal reads its resource's
 * claims row (one row) instead of summing every other open proposal, so a sweep over one busy
 * resource grows linearly with its open proposals, not with their square.
 */
const t = setupTestDatabase();
const counting = setupCountingDatabase(t, 'recheck-open.postgres.int.test.ts');
const systems = setupDemoSystems();
const seeded = seededWorld(t);

let sequence = 0;
async function openRefunds(n: number) {
  for (let i = 0; i < n; i++) {
    const body = {
      requestId: `req_sweep_${++sequence}`,
      action: 'issue_refund',
      contractVersion: 1,
      args: { orderId: 'ord_1842', amountMinor: 10, currency: 'USD', reason: 'Customer requested a refund' },
    };
    await submitAs(t.db, systems.client, seeded.acme, body);
  }
}

describe('the re-check sweep over one resource', () => {
  it('sends the same statements per open proposal at 4, 8 and 16 open, and none of them sums the open proposals', async () => {
    const sweeps: { open: number; statements: number }[] = [];
    let clock = Date.now();
    for (const open of [4, 8, 16]) {
      await openRefunds(open - (sweeps.at(-1)?.open ?? 0));
      clock += 60_000;
      const sent = await counting.statementsSentBy(async () => {
        const result = await recheckOpen(counting.db, systems.client, { now: new Date(clock), sweepAfterMs: 0 });
        expect(result).toEqual({ checked: open, stale: 0, drifted: 0, unavailable: 0 });
      });
      expect(sent.filter((statement) => /\bsum\(/i.test(statement.query))).toEqual([]);
      const claimsReads = sent.filter((statement) => statement.query.includes('"resource_claims"'));
      expect(claimsReads).toHaveLength(open);
      for (const read of claimsReads.slice(0, 2)) expect((await counting.analyzedPlan(read))['Actual Rows']).toBe(1);
      sweeps.push({ open, statements: sent.length });
    }
    console.log(`[recheck] statements per sweep: ${sweeps.map((s) => `${s.open} open → ${s.statements}`).join(', ')}`);
    const [four, eight, sixteen] = sweeps.map((s) => s.statements) as [number, number, number];
    // Linear: the same cost per proposal from 4 to 8 as from 8 to 16.
    expect((sixteen - eight) / 8).toBe((eight - four) / 4);
  });
});

describe('the sweep with nothing due, on one busy resource', () => {
  const DAY = 86_400_000;
  // Checked (updated) after `now` minus a day and never since outdone by a sibling: nothing is due.
  const now = new Date('2031-01-01T00:00:00Z');
  const resourceKey = 'sku:sweep-hot';
  const batch = (tag: string, n: number) =>
    insertBulk(t.db, 'acme', n, {
      tag,
      resourceKey,
      createdFrom: '2030-12-01T00:00:00Z',
      updatedFrom: '2030-12-31T12:00:00Z',
      expiresFrom: '2032-01-01T00:00:00Z',
    });
  /** Buffers per pending proposal looked at: the probe for a sibling that moved on, and the whole query. */
  const perPending = async () => {
    const plan = await analyzedPlan(t.db, candidatesQuery(t.db, 'acme', now, 50, DAY));
    if (process.env.SHOW_PLANS) console.log(JSON.stringify(plan, null, 1));
    const probe = planNodes(plan).find(
      (node) =>
        node['Subplan Name'] && planNodes(node).some((inner) => inner['Index Name'] === 'proposals_moved_on_idx'),
    );
    expect(probe, JSON.stringify(plan)).toBeDefined();
    const buffers = (node: AnalyzedNode) => node['Shared Hit Blocks'] + node['Shared Read Blocks'];
    return {
      probes: probe!['Actual Loops'],
      probe: buffers(probe!) / probe!['Actual Loops'],
      query: buffers(plan) / probe!['Actual Loops'],
    };
  };

  it('probes proposals_moved_on_idx once per pending proposal at the same cost, however many wait on the resource (linear, not quadratic)', async () => {
    // Ended siblings, all before the pending ones were last checked, in a history long enough that no plan reads it
    // whole.
    await insertBulk(t.db, 'acme', 200, {
      tag: 'sweepended',
      status: 'succeeded',
      resourceKey,
      updatedFrom: '2030-06-01T00:00:00Z',
      createdFrom: '2030-05-01T00:00:00Z',
    });
    await insertBulk(t.db, 'acme', 30_000, {
      tag: 'sweephistory',
      status: 'succeeded',
      resourceKey: 'sku:elsewhere',
      updatedFrom: '2029-06-01T00:00:00Z',
      createdFrom: '2029-05-01T00:00:00Z',
    });
    await batch('sweepa', 400);
    await t.owner.execute(sql`analyze proposals`);
    const four = await perPending();
    await batch('sweepb', 400);
    await t.owner.execute(sql`analyze proposals`);
    const eight = await perPending();
    console.log(
      `[recheck] nothing due, buffers per pending proposal: probe ${four.probe.toFixed(2)} and ` +
        `query ${four.query.toFixed(2)} at ${four.probes}, probe ${eight.probe.toFixed(2)} and ` +
        `query ${eight.query.toFixed(2)} at ${eight.probes}`,
    );
    expect(eight.probes).toBeGreaterThanOrEqual(800);
    // Summing or scanning the siblings of each (quadratic) would double the cost of each probe.
    expect(eight.probe / four.probe).toBeLessThan(1.3);
  });

  it("finds a moved-on sibling through the partial index under a generic plan too (a prepared statement's parameters hide its values)", async () => {
    const { sql: text, params } = candidatesQuery(t.db, 'acme', now, 50, DAY).toSQL();
    const literal = (value: unknown) =>
      typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`;
    const plan = await t.db.transaction(async (tx) => {
      await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
      await tx.execute(sql.raw(`prepare sweep_generic as ${text}`));
      const generic = await explainPlan(tx, sql.raw(`execute sweep_generic(${params.map(literal).join(', ')})`));
      await tx.execute(sql`deallocate sweep_generic`);
      return generic;
    });
    expect(plan).toMatch(/\$\d/);
    expect(plan).toContain('proposals_moved_on_idx');
  });
});
