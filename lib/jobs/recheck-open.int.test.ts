import { and, eq, inArray } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { agentKeys, auditEvents, outbox, type Proposal, proposals } from '@/db/schema';
import { createAgentKey } from '@/lib/admin/accounts';
import { decide } from '@/lib/decisions/decide';
import { chainAllPending } from '@/lib/events/chainer';
import { reconcileClaims } from '@/lib/jobs/reconcile-claims';
import { setupCommandWorld } from '@/test/fixtures/commands';
import { submitAs } from '@/test/intake';
import { auditRowsFor, proposalRow, rowCounts } from '@/test/queries';
import { unreachableSystemsClient } from '@/test/systems';
import { agentPrincipal } from '@/test/world';
import { recheckOpen } from './recheck-open';

/** The background re-check of open proposals (docs/design.md §6): stale only when it matters, shown otherwise. */
const w = setupCommandWorld();
const t = w.t;
/** Only what a sibling's outcome triggers, unless a test asks for the slow sweep. */
const TRIGGERED_ONLY = { sweepAfterMs: 3_600_000 };

const refund = (amountMinor: number) =>
  w.propose('issue_refund', {
    orderId: 'ord_1842',
    amountMinor,
    currency: 'USD',
    reason: 'Customer requested a refund',
  });

/** Approves with as many approvers as the routing asks (a split refund may need two). */
async function approveFully(proposal: Proposal) {
  for (const person of ['alice', 'bob'] as const) {
    const decided = await decide(t.db, w.systems.client, {
      userId: w.world.userId(person),
      proposalId: proposal.id,
      request: { decision: 'approve', payloadHash: proposal.payloadHash },
    });
    if (decided.status === 'approved') return decided;
  }
  throw new Error('not approved by two approvers');
}

/** Approves and runs the refund through the executor: its outcome is what triggers the re-check. */
async function executed(proposal: Proposal) {
  await approveFully(proposal);
  const answer = await w.execute((await w.commandOf(proposal.id)).jws);
  expect(answer.status).toBe('succeeded');
}

// Open claims of one test must not count against the next one's balance.
afterEach(async () => {
  await t.db
    .update(proposals)
    .set({ status: 'cancelled' })
    .where(inArray(proposals.status, ['pending_approval', 'approved']));
  // Written behind the transitions' back: the claims row is repaired as reconciliation would.
  await reconcileClaims(t.db);
});

describe('after an execution on the resource', () => {
  it('ends a sibling the balance no longer covers as stale, without anyone clicking; one that still holds is marked changed', async () => {
    const first = await refund(1000);
    const uncovered = await refund(3000);
    const covered = await refund(500);
    await executed(first);
    // Meanwhile someone refunds outside Countersign: 49.99 − 10.00 − 15.00 leaves 24.99.
    await w.refundDirectly('ord_1842', 1500, 'USD');

    const result = await recheckOpen(t.db, w.systems.client, TRIGGERED_ONLY);
    expect(result).toEqual({ checked: 2, stale: 1, drifted: 1, unavailable: 0 });

    const stale = await proposalRow(t.db, uncovered.id);
    expect(stale.status).toBe('stale');
    expect(stale.statusReason).toBe(
      'order balance changed from 49.99 USD to 24.99 USD since it was proposed; at most 19.99 USD can be ' +
        'refunded (charged 49.99 USD, refunded 25.00 USD, 5.00 USD in open proposals)',
    );
    expect(stale.gates.find((gate) => gate.gate === 'meaning')).toEqual({
      gate: 'meaning',
      ok: false,
      code: 'exceeds_refundable_balance',
      detail: stale.statusReason,
    });
    expect((await auditRowsFor(t.db, uncovered.id)).at(-1)).toMatchObject({
      type: 'proposal.stale',
      actorType: 'system',
      actorId: 'recheck',
      reasonCode: 'exceeds_refundable_balance',
    });
    const topics = await t.db.select({ topic: outbox.topic }).from(outbox).where(eq(outbox.proposalId, uncovered.id));
    expect(topics.map((row) => row.topic)).toContain('proposal.stale');

    const drifted = await proposalRow(t.db, covered.id);
    expect(drifted.status).toBe('pending_approval');
    expect(drifted.drift).toMatchObject({
      description: 'order balance changed from 49.99 USD to 24.99 USD since it was proposed',
      facts: { chargedMinor: 4999, refundedMinor: 2500 },
    });
    expect(drifted.gates.every((gate) => gate.ok)).toBe(true);

    // Nothing changed since: the next run finds nothing to do.
    expect(await recheckOpen(t.db, w.systems.client, TRIGGERED_ONLY)).toEqual({
      checked: 0,
      stale: 0,
      drifted: 0,
      unavailable: 0,
    });
    // And the drifted one is still approvable: the change is shown, not fatal.
    await expect(approveFully(drifted)).resolves.toMatchObject({ status: 'approved' });
  });

  it('approving a sibling after one refund executed succeeds while the balance covers it', async () => {
    const first = await refund(1000);
    const second = await refund(2000);
    await executed(first);
    await expect(approveFully(second)).resolves.toMatchObject({ status: 'approved' });
    const approval = (await auditRowsFor(t.db, second.id)).find(
      (row) => row.type === 'proposal.approved' || row.type === 'proposal.approval_added',
    );
    expect(approval?.data).toMatchObject({ factsChanged: true });
  });

  it('leaves proposals on other resources, and ones checked after the sibling finished, alone', async () => {
    const first = await refund(1000);
    const elsewhere = await w.propose('hold_stock', { sku: 'filter-blue', quantity: 1 });
    await executed(first);
    const later = await refund(500);
    expect(await recheckOpen(t.db, w.systems.client, TRIGGERED_ONLY)).toMatchObject({ checked: 0 });
    expect((await proposalRow(t.db, elsewhere.id)).updatedAt).toEqual(elsewhere.updatedAt);
    expect((await proposalRow(t.db, later.id)).drift).toBeNull();
  });
});

describe('the slow sweep', () => {
  it('notices a change made outside Countersign and clears the note once the world is back', async () => {
    const proposal = await refund(1000);
    await w.refundDirectly('ord_1842', 999, 'USD');
    expect(await recheckOpen(t.db, w.systems.client, TRIGGERED_ONLY)).toMatchObject({ checked: 0 });
    expect(await recheckOpen(t.db, w.systems.client, { sweepAfterMs: 0 })).toMatchObject({ checked: 1, drifted: 1 });
    expect((await proposalRow(t.db, proposal.id)).drift?.description).toBe(
      'order balance changed from 49.99 USD to 40.00 USD since it was proposed',
    );
    await w.systems.reset();
    expect(await recheckOpen(t.db, w.systems.client, { sweepAfterMs: 0 })).toMatchObject({
      checked: 1,
      drifted: 0,
      stale: 0,
    });
    expect((await proposalRow(t.db, proposal.id)).drift).toBeNull();
  });

  it('ends a hold as stale at Authority when the SKU’s warehouse left the key’s grants', async () => {
    const { key, id } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: 'sweep-north-bot',
      actions: ['hold_stock'],
      grants: { warehouses: ['north'] },
    });
    const { proposal } = await submitAs(t.db, w.systems.client, await agentPrincipal(t.db, key), {
      requestId: 'req_sweep_hold',
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-gray', quantity: 1 },
    });
    await t.db
      .update(agentKeys)
      .set({ grants: { warehouses: ['south'] } })
      .where(eq(agentKeys.id, id));
    expect(await recheckOpen(t.db, w.systems.client, { sweepAfterMs: 0 })).toMatchObject({ stale: 1 });
    const row = await proposalRow(t.db, proposal.id);
    expect(row).toMatchObject({
      status: 'stale',
      statusReason: 'the grants of sweep-north-bot no longer cover sku:filter-gray since it was proposed',
    });
    expect(row.gates.find((gate) => gate.gate === 'authority')).toMatchObject({ ok: false, code: 'grants_changed' });
  });

  it('changes nothing when the system of record cannot answer', async () => {
    const first = await refund(1000);
    const sibling = await refund(3000);
    await executed(first);
    await w.refundDirectly('ord_1842', 1500, 'USD');
    const before = { counts: await rowCounts(t.db), row: await proposalRow(t.db, sibling.id) };
    const down = await unreachableSystemsClient();
    expect(await recheckOpen(t.db, down, TRIGGERED_ONLY)).toEqual({ checked: 0, stale: 0, drifted: 0, unavailable: 1 });
    expect({ counts: await rowCounts(t.db), row: await proposalRow(t.db, sibling.id) }).toEqual(before);
    // Once it answers again, the same trigger still stands.
    expect(await recheckOpen(t.db, w.systems.client, TRIGGERED_ONLY)).toMatchObject({ stale: 1 });
  });
});

describe('two workers at once', () => {
  it('process each proposal once (SKIP LOCKED): one stale event each, never two', async () => {
    const first = await refund(500);
    const siblings = [await refund(1000), await refund(1100), await refund(1200)];
    await executed(first);
    await w.refundDirectly('ord_1842', 4000, 'USD');
    const results = await Promise.all([
      recheckOpen(t.db, w.systems.client, TRIGGERED_ONLY),
      recheckOpen(t.db, w.systems.client, TRIGGERED_ONLY),
    ]);
    expect(results[0]!.checked + results[1]!.checked).toBe(siblings.length);
    await chainAllPending(t.db);
    const events = await t.db
      .select({ proposalId: auditEvents.proposalId })
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.type, 'proposal.stale'),
          inArray(
            auditEvents.proposalId,
            siblings.map((p) => p.id),
          ),
        ),
      );
    expect(events).toHaveLength(siblings.length);
  });
});
