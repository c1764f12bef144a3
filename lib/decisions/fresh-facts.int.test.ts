import { inArray } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { proposals } from '@/db/schema';
import { reconcileClaims } from '@/lib/jobs/reconcile-claims';
import type { SystemsClient } from '@/lib/systems/client';
import { setupCommandWorld } from '@/test/fixtures/commands';
import { auditRowsFor, proposalRow } from '@/test/queries';
import { unreachableSystemsClient } from '@/test/systems';
import { FactsCache, freshFacts } from './fresh-facts';

/** A proposal's facts read again when someone looks (POST /api/v1/proposals/{id}/recheck). */
const w = setupCommandWorld();
const t = w.t;

const refund = (amountMinor: number) =>
  w.propose('issue_refund', {
    orderId: 'ord_1842',
    amountMinor,
    currency: 'USD',
    reason: 'Customer requested a refund',
  });
const acme = { memberships: [{ tenantId: 'acme' }] };
/** A fresh cache per look unless a test shares one: no answer leaks between tests. */
const look = (id: string, options: { cache?: FactsCache; systems?: SystemsClient; timeoutMs?: number } = {}) =>
  freshFacts(t.db, options.systems ?? w.systems.client, acme, id, {
    cache: options.cache ?? new FactsCache(),
    timeoutMs: options.timeoutMs,
  });

afterEach(async () => {
  await t.db
    .update(proposals)
    .set({ status: 'cancelled' })
    .where(inArray(proposals.status, ['pending_approval', 'approved']));
  await reconcileClaims(t.db);
  await w.systems.reset();
});

describe('freshFacts', () => {
  it('answers "fresh" with the facts at proposal beside the facts now when nothing moved', async () => {
    const proposal = await refund(1000);
    const facts = await look(proposal.id);
    expect(facts).toMatchObject({
      proposalId: proposal.id,
      state: 'fresh',
      note: null,
      atProposal: {
        detail: 'ord_1842 in acme, charged 49.99 USD, 49.99 USD not yet refunded',
        facts: { chargedMinor: 4999, refundedMinor: 0 },
      },
      now: { detail: 'ord_1842 in acme, charged 49.99 USD, 49.99 USD not yet refunded' },
    });
    expect((await proposalRow(t.db, proposal.id)).drift).toBeNull();
  });

  it('marks a proposal that still holds as changed, in the background re-check’s words, and stores the drift', async () => {
    const proposal = await refund(1000);
    await w.refundDirectly('ord_1842', 999, 'USD');
    const facts = await look(proposal.id);
    expect(facts).toMatchObject({
      state: 'changed',
      note: 'order balance changed from 49.99 USD to 40.00 USD since it was proposed',
      atProposal: { detail: 'ord_1842 in acme, charged 49.99 USD, 49.99 USD not yet refunded' },
      now: { detail: 'ord_1842 in acme, charged 49.99 USD, 40.00 USD not yet refunded' },
    });
    expect((await proposalRow(t.db, proposal.id)).drift?.description).toBe(
      'order balance changed from 49.99 USD to 40.00 USD since it was proposed',
    );
  });

  it('ends one that no longer holds as stale, as the sweep would (system actor, audited)', async () => {
    const proposal = await refund(3000);
    await w.refundDirectly('ord_1842', 2500, 'USD');
    const facts = await look(proposal.id);
    expect(facts.state).toBe('stale');
    expect(facts.note).toContain('order balance changed from 49.99 USD to 24.99 USD since it was proposed');
    expect((await proposalRow(t.db, proposal.id)).status).toBe('stale');
    expect((await auditRowsFor(t.db, proposal.id)).at(-1)).toMatchObject({
      type: 'proposal.stale',
      actorType: 'system',
      actorId: 'recheck',
    });
    // Looking again reads nothing: it is no longer pending.
    expect(await look(proposal.id)).toMatchObject({ state: 'closed', now: null });
  });

  it('answers "unavailable" and changes nothing when the system of record does not answer', async () => {
    const proposal = await refund(1000);
    const facts = await look(proposal.id, { systems: await unreachableSystemsClient() });
    expect(facts).toMatchObject({ state: 'unavailable', now: null });
    expect(await proposalRow(t.db, proposal.id)).toMatchObject({
      status: 'pending_approval',
      drift: null,
      updatedAt: proposal.updatedAt,
    });
  });

  it('answers "unavailable" once its bound passes, whatever the system of record is still doing', async () => {
    const proposal = await refund(1000);
    const never: SystemsClient = { read: () => new Promise(() => {}) };
    expect(await look(proposal.id, { systems: never, timeoutMs: 1 })).toMatchObject({
      state: 'unavailable',
      note: 'no answer in time',
    });
  });

  it('shares one answer per proposal while it is recent: a second look does not read the system of record', async () => {
    const proposal = await refund(1000);
    let reads = 0;
    const counting: SystemsClient = {
      read: (path, schema, scope) => {
        reads++;
        return w.systems.client.read(path, schema, scope);
      },
    };
    let clock = 0;
    const cache = new FactsCache(() => clock, 5_000);
    await look(proposal.id, { cache, systems: counting });
    await look(proposal.id, { cache, systems: counting });
    expect(reads).toBe(1);
    clock = 5_000;
    await look(proposal.id, { cache, systems: counting });
    expect(reads).toBe(2);
  });

  it('is not found for a proposal of a tenant the viewer is not a member of, or an unknown id', async () => {
    const proposal = await refund(1000);
    const globexOnly = { memberships: [{ tenantId: 'globex' }] };
    await expect(
      freshFacts(t.db, w.systems.client, globexOnly, proposal.id, { cache: new FactsCache() }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(look('prp_nope')).rejects.toMatchObject({ code: 'not_found' });
  });
});
