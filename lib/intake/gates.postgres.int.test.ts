import { and, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, outbox, proposals } from '@/db/schema';
import { createAgentKey } from '@/lib/admin/accounts';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { Refusal } from '@/lib/errors/refusal';
import { chainAllPending } from '@/lib/events/chainer';
import { reconcileClaims } from '@/lib/jobs/reconcile-claims';
import { setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { agentPrincipal, seededAgents } from '@/test/world';

/**
 * Concurrent intake on one resource (PostgreSQL only): the per-resource advisory lock makes open
 * proposals count against the live balance exactly once, and idempotency holds under races.
 */
const t = setupTestDatabase();
if (t.driver !== 'postgres') {
  throw new Error('gates.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}
const systems = setupDemoSystems();

const agents = seededAgents(t);

const refund = (requestId: string, amountMinor: number, orderId = 'ord_1842', currency = 'USD') => ({
  requestId,
  action: 'issue_refund',
  contractVersion: 1,
  args: { orderId, amountMinor, currency, reason: 'Customer requested a refund' },
});

const submit = (agent: AgentPrincipal, body: object) => submitAs(t.db, systems.client, agent, body);

function codeOf(result: PromiseSettledResult<unknown>): string {
  if (result.status === 'fulfilled') return 'ok';
  return result.reason instanceof Refusal ? result.reason.code : `unexpected: ${String(result.reason)}`;
}

async function openOn(resourceKey: string) {
  return t.db
    .select()
    .from(proposals)
    .where(
      and(
        eq(proposals.resourceKey, resourceKey),
        inArray(proposals.status, ['pending_approval', 'approved', 'executing']),
      ),
    );
}

async function closeOpenOn(resourceKey: string) {
  for (const row of await openOn(resourceKey))
    await t.db.update(proposals).set({ status: 'cancelled' }).where(eq(proposals.id, row.id));
  // Written behind the transitions' back: the claims row is repaired as reconciliation would.
  await reconcileClaims(t.db);
}

describe('concurrent refunds on one order (PostgreSQL)', () => {
  it.each([1, 2, 3, 4, 5])(
    'two refunds of 3000 on ord_1842 (balance 4999) at once: exactly one is accepted (round %i)',
    async (round) => {
      await closeOpenOn('order:ord_1842');
      const results = await Promise.allSettled([
        submit(agents.acme, refund(`req_pair_a_${round}`, 3000)),
        submit(agents.acme, refund(`req_pair_b_${round}`, 3000)),
      ]);
      expect(results.map(codeOf).sort()).toEqual(['exceeds_refundable_balance', 'ok']);
      const open = await openOn('order:ord_1842');
      expect(open).toHaveLength(1);
      expect(open[0]?.payload.args.amountMinor).toBe(3000);
    },
  );

  it('eight refunds of 1000 at once on ord_1842: exactly four fit the balance of 4999', async () => {
    await closeOpenOn('order:ord_1842');
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => submit(agents.acme, refund(`req_eight_${i}`, 1000))),
    );
    const codes = results.map(codeOf);
    expect(codes.filter((code) => code === 'ok')).toHaveLength(4);
    expect(codes.filter((code) => code === 'exceeds_refundable_balance')).toHaveLength(4);
    const open = await openOn('order:ord_1842');
    expect(open.reduce((sum, row) => sum + Number(row.payload.args.amountMinor), 0)).toBe(4000);
  });

  it('does not serialize different orders against each other: both full refunds are accepted', async () => {
    await closeOpenOn('order:ord_1842');
    await closeOpenOn('order:ord_1843');
    const results = await Promise.allSettled([
      submit(agents.acme, refund('req_two_orders_a', 4999)),
      submit(agents.acme, refund('req_two_orders_b', 58000, 'ord_1843', 'EUR')),
    ]);
    expect(results.map(codeOf)).toEqual(['ok', 'ok']);
  });

  it('answers 10 identical refund requests sent at once with one proposal, and never with a balance error', async () => {
    await closeOpenOn('order:ord_1842');
    const body = refund('req_same_refund', 3000);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => submit(agents.acme, body)));
    expect(results.map(codeOf)).toEqual(Array.from({ length: 10 }, () => 'ok'));
    const outcomes = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(new Set(outcomes.map((outcome) => outcome.proposal.id)).size).toBe(1);
    expect(outcomes.filter((outcome) => outcome.created)).toHaveLength(1);
    const rows = await t.db.select().from(proposals).where(eq(proposals.requestId, 'req_same_refund'));
    expect(rows).toHaveLength(1);
  });
});

describe('concurrent idempotency per key (PostgreSQL)', () => {
  it('one requestId from the agents.acme and agents.globex keys at once: two proposals, one each', async () => {
    const hold = (sku: string) => ({
      requestId: 'req_both_tenants',
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku, quantity: 1 },
    });
    const [mine, theirs] = await Promise.all([
      submit(agents.acme, hold('filter-blue')),
      submit(agents.globex, hold('filter-green')),
    ]);
    expect(mine.created && theirs.created).toBe(true);
    expect(mine.proposal.tenantId).toBe('acme');
    expect(theirs.proposal.tenantId).toBe('globex');
  });

  it('one requestId from two keys of one tenant, five times each at once: two proposals, one per key', async () => {
    const { key } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: 'acme-twin',
      actions: ['hold_stock'],
      grants: { warehouses: ['north'] },
    });
    const twin = await agentPrincipal(t.db, key);
    const body = {
      requestId: 'req_two_keys',
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    };
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => submit(i % 2 === 0 ? agents.acme : twin, body)),
    );
    const byKey = new Map<string, Set<string>>();
    for (const outcome of outcomes)
      byKey.set(
        outcome.proposal.agentKeyId!,
        (byKey.get(outcome.proposal.agentKeyId!) ?? new Set()).add(outcome.proposal.id),
      );
    expect([...byKey.keys()].sort()).toEqual([agents.acme.keyId, twin.keyId].sort());
    for (const ids of byKey.values()) expect(ids.size).toBe(1);
    expect(outcomes.filter((outcome) => outcome.created)).toHaveLength(2);
    const rows = await t.db.select().from(proposals).where(eq(proposals.requestId, 'req_two_keys'));
    expect(rows).toHaveLength(2);
    await chainAllPending(t.db);
    for (const row of rows) {
      expect(await t.db.select().from(auditEvents).where(eq(auditEvents.proposalId, row.id))).toHaveLength(1);
      expect(await t.db.select().from(outbox).where(eq(outbox.proposalId, row.id))).toHaveLength(1);
    }
  });
});
