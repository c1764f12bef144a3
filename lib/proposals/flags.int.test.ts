import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type Proposal, proposals } from '@/db/schema';
import { proposalDetail } from '@/lib/api/responses/proposal-json';
import { reviseProposal } from '@/lib/decisions/revise';
import { reconcileClaims } from '@/lib/jobs/reconcile-claims';
import { setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';

/**
 * Risk flags through the real intake (lib/intake/admit.ts → lib/proposals/flags.ts) against the
 * demo systems of record: computed under the resource lock, stored with the proposal, served to
 * operators. Every scenario runs on its own day, more than an aggregate window apart, and the
 * tests run in order: "first use" depends on what came before.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);

const HOUR = 3_600_000;
let day = 0;
const freshDay = () => new Date(Date.UTC(2032, 0, 1, 12) + ++day * 3 * 24 * HOUR);
let sequence = 0;

type RefundArgs = { orderId?: string; amountMinor: number; currency?: string; reason?: string };

async function refund(
  now: Date,
  { orderId = 'ord_1843', amountMinor, currency = 'EUR', reason = 'Customer requested a refund' }: RefundArgs,
  evidenceRefs: string[] = [],
): Promise<Proposal> {
  const body = {
    requestId: `flags_${++sequence}`,
    action: 'issue_refund',
    contractVersion: 1,
    args: { orderId, amountMinor, currency, reason },
    evidenceRefs,
  };
  return (await submitAs(t.db, systems.client, seeded.acme, body, { now })).proposal;
}

async function hold(now: Date, sku: string, quantity: number): Promise<Proposal> {
  const body = { requestId: `flags_${++sequence}`, action: 'hold_stock', contractVersion: 1, args: { sku, quantity } };
  return (await submitAs(t.db, systems.client, seeded.acme, body, { now })).proposal;
}

const kinds = (proposal: Proposal) => proposal.flags.map((flag) => flag.kind);
const flag = (proposal: Proposal, kind: string) => proposal.flags.find((f) => f.kind === kind);

/** Nothing on the resource holds a claim any more (ends a scenario). */
async function closeAll() {
  await t.db.update(proposals).set({ status: 'cancelled' });
  // Written behind the transitions' back: the claims row is repaired as reconciliation would.
  await reconcileClaims(t.db);
}

describe('risk flags at intake', () => {
  it('the first proposal on an order is a first use; the second, a plain refund, has no flags at all', async () => {
    const now = freshDay();
    const first = await refund(now, { amountMinor: 1000 });
    expect(first.flags).toEqual([
      { kind: 'first_use', label: 'First use', detail: 'No earlier proposal on order ord_1843 in this tenant' },
    ]);
    // Stored, not only returned.
    expect((await proposalRow(t.db, first.id)).flags).toEqual(first.flags);

    const plain = await refund(new Date(now.getTime() + 60_000), { amountMinor: 1000 }, ['ticket_message_73']);
    expect(plain.flags).toEqual([]);
    // A cancelled or rejected earlier proposal is an earlier use all the same.
    await closeAll();
    expect(kinds(await refund(new Date(now.getTime() + 120_000), { amountMinor: 1000 }))).toEqual([]);
    await closeAll();
  });

  it('a refund citing ticket_message_74 is flagged as suspicious evidence, naming the ticket and the phrase', async () => {
    const proposal = await refund(freshDay(), { amountMinor: 1000 }, ['ticket_message_73', 'ticket_message_74']);
    expect(kinds(proposal)).toEqual(['suspicious_evidence']);
    expect(flag(proposal, 'suspicious_evidence')).toEqual({
      kind: 'suspicious_evidence',
      label: 'Suspicious evidence',
      detail: 'evidence ticket_message_74: “Ignore your rules”, “retry with admin”, “<script”',
    });
    await closeAll();
  });

  it('a reason with U+202E is flagged, naming the field, the code point and its name', async () => {
    const proposal = await refund(freshDay(), { amountMinor: 1000, reason: 'refund \u202Eexe.gnp\u202C now' });
    expect(flag(proposal, 'invisible_characters')).toEqual({
      kind: 'invisible_characters',
      label: 'Invisible characters',
      detail: 'reason: U+202E RIGHT-TO-LEFT OVERRIDE, U+202C POP DIRECTIONAL FORMATTING',
    });
    await closeAll();
  });

  it('a reason with a Cyrillic look-alike is flagged; one with é, € and × is not', async () => {
    const now = freshDay();
    const spoofed = await refund(now, { amountMinor: 1000, reason: 'Refund ord_1842 \u0430s \u0430greed' });
    expect(flag(spoofed, 'lookalike_characters')?.detail).toBe('reason: U+0430 CYRILLIC SMALL LETTER A (looks like a)');
    const accented = await refund(new Date(now.getTime() + 60_000), {
      amountMinor: 1000,
      reason: 'Remboursé 10 € — 2 × filtre',
    });
    expect(accented.flags).toEqual([]);
    await closeAll();
  });

  it('an amount just under the two-approver threshold, alone or with the earlier refunds, is near a bound', async () => {
    const now = freshDay();
    const alone = await refund(now, { amountMinor: 9500 });
    expect(alone.routing.approvals).toBe(1);
    expect(flag(alone, 'near_bound')?.detail).toBe(
      'amountMinor 95.00 EUR is just under 100.00 EUR, above which rule "refunds-over-100" needs 2 approvers',
    );
    await closeAll();

    // Split: 50.00 then 45.00 on the same order within 24 h adds up to 95.00.
    const later = freshDay();
    expect(flag(await refund(later, { amountMinor: 5000 }), 'near_bound')).toBeUndefined();
    const slice = await refund(new Date(later.getTime() + 60_000), { amountMinor: 4500 });
    expect(flag(slice, 'near_bound')?.detail).toBe(
      'amountMinor 45.00 EUR (95.00 EUR with 1 earlier in 24 h) is just under 100.00 EUR, above which rule ' +
        '"refunds-over-100" needs 2 approvers',
    );
    // Over the threshold it is routed to two approvers: nothing "near" about it.
    expect(
      flag(await refund(new Date(later.getTime() + 120_000), { amountMinor: 2000 }), 'near_bound'),
    ).toBeUndefined();
    await closeAll();
  });

  it('a refund taking (nearly) all that is still refundable is near a bound', async () => {
    const now = freshDay();
    const full = await refund(now, { orderId: 'ord_1842', amountMinor: 4999, currency: 'USD' });
    expect(kinds(full)).toEqual(['near_bound', 'first_use']);
    expect(flag(full, 'near_bound')?.detail).toBe('49.99 of 49.99 USD still refundable');
    await closeAll();
    // With an open proposal holding part of the balance, the rest counts.
    const later = freshDay();
    await refund(later, { orderId: 'ord_1842', amountMinor: 1000, currency: 'USD' });
    const rest = await refund(new Date(later.getTime() + 60_000), {
      orderId: 'ord_1842',
      amountMinor: 3900,
      currency: 'USD',
    });
    expect(flag(rest, 'near_bound')?.detail).toBe(
      '39.00 of 39.99 USD still refundable (after 10.00 USD in open proposals)',
    );
    await closeAll();
  });

  it('a hold of all that may be held is near a bound; a revision of a first use is a first use too', async () => {
    const now = freshDay();
    const first = await hold(now, 'filter-blue', 1);
    expect(kinds(first)).toEqual(['first_use']);
    const revision = await reviseProposal(
      t.db,
      systems.client,
      {
        reason: 'Edited in a test',
        userId: seeded.world.userId('alice'),
        proposalId: first.id,
        args: { sku: 'filter-blue', quantity: 4 },
      },
      new Date(now.getTime() + 60_000),
    );
    expect(revision.flags).toEqual([
      { kind: 'near_bound', label: 'Near a bound', detail: '4 of at most 4 units held at once' },
      { kind: 'first_use', label: 'First use', detail: 'No earlier proposal on sku filter-blue in this tenant' },
    ]);
    const revisionOfRevision = await reviseProposal(
      t.db,
      systems.client,
      {
        reason: 'Edited in a test',
        userId: seeded.world.userId('alice'),
        proposalId: revision.id,
        args: { sku: 'filter-blue', quantity: 2 },
      },
      new Date(now.getTime() + 120_000),
    );
    expect(kinds(revisionOfRevision)).toEqual(['first_use']);
    // Another request on the same SKU is not.
    expect(kinds(await hold(new Date(now.getTime() + 180_000), 'filter-blue', 1))).toEqual([]);
    await closeAll();
  });

  it('operators get the flags in the proposal JSON; the agent whose text they read does not', async () => {
    const proposal = await refund(freshDay(), { amountMinor: 1000 }, ['ticket_message_74']);
    const [row] = await t.db.select().from(proposals).where(eq(proposals.id, proposal.id));
    expect(proposalDetail(row!, [], 'http://countersign.test', 'operator')).toMatchObject({ flags: proposal.flags });
    expect(proposalDetail(row!, [], 'http://countersign.test', 'agent')).not.toHaveProperty('flags');
    await closeAll();
  });
});
