import { describe, expect, it } from 'vitest';
import { setupCountingDatabase, setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { recheckOpen } from './recheck-open';

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
    const body = { requestId: `req_sweep_${++sequence}`, action: 'issue_refund', contractVersion: 1, args: { orderId: 'ord_1842', amountMinor: 10, currency: 'USD', reason: 'Customer requested a refund' } };
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
