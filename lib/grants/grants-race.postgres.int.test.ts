import { eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { grants, type Proposal, proposals } from '@/db/schema';
import { QUEUE_FIFTY_ORDERS } from '@/demo/systems/world';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { decide } from '@/lib/decisions/decide';
import { submitProposal } from '@/lib/intake/intake';
import { setupTestDatabase } from '@/test/db';
import { setupDemoSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { createGrant } from './create';

/**
 * A grant's caps under concurrency on a real server: intakes on different resources hold different
 * resource locks, so only the grant's own row lock keeps its count and total exact.
 */
const t = setupTestDatabase();
if (t.driver !== 'postgres')
  throw new Error('grants-race.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
const systems = setupDemoSystems();
const ORDERS = QUEUE_FIFTY_ORDERS.slice(0, 8);

let world: SeededWorld;
let acme: AgentPrincipal;
let sequence = 0;

async function refund(orderId: string, amountMinor: number): Promise<Proposal> {
  const body = {
    requestId: `req_grant_race_${++sequence}`,
    action: 'issue_refund',
    contractVersion: 1,
    args: { orderId, amountMinor, currency: 'EUR', reason: 'damaged in transit' },
  };
  return (await submitProposal(t.db, acme, { text: JSON.stringify(body), value: body }, systems.client)).proposal;
}

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
  // One earlier refund on each order: the raced ones carry no "first use" flag.
  for (const orderId of ORDERS) await refund(orderId, 100);
});

async function grantFrom(terms: { maxCount: number; maxTotalMinor?: number }) {
  await t.db.update(grants).set({ endedAt: new Date(), endReason: 'revoked' });
  const source = await refund(ORDERS[0]!, 1000);
  await decide(t.db, systems.client, {
    userId: world.userId('alice'),
    proposalId: source.id,
    request: { decision: 'approve', payloadHash: source.payloadHash },
  });
  return createGrant(t.db, {
    tenantId: 'acme',
    userId: world.userId('alice'),
    request: { proposalId: source.id, minutes: 60, sameResource: false, reason: 'race', ...terms },
  });
}

async function race(): Promise<Proposal[]> {
  const raced = await Promise.all(ORDERS.map((orderId) => refund(orderId, 1000)));
  return t.db
    .select()
    .from(proposals)
    .where(
      inArray(
        proposals.id,
        raced.map((row) => row.id),
      ),
    );
}

describe('under concurrency', () => {
  it('eight intakes on eight orders at once use a count cap of 3 exactly', async () => {
    const grant = await grantFrom({ maxCount: 3 });
    const rows = await race();
    expect(rows.filter((row) => row.grantId === grant.id && row.status === 'approved')).toHaveLength(3);
    expect(rows.filter((row) => row.status === 'pending_approval' && row.grantId === null)).toHaveLength(5);
    expect((await t.db.select().from(grants).where(eq(grants.id, grant.id)))[0]).toMatchObject({
      usedCount: 3,
      usedTotalMinor: 3000,
    });
  });

  it('and a money total of 35.00 EUR exactly: three refunds of 10.00, never a fourth', async () => {
    const grant = await grantFrom({ maxCount: 100, maxTotalMinor: 3500 });
    const rows = await race();
    expect(rows.filter((row) => row.grantId === grant.id)).toHaveLength(3);
    expect((await t.db.select().from(grants).where(eq(grants.id, grant.id)))[0]).toMatchObject({
      usedCount: 3,
      usedTotalMinor: 3000,
    });
  });
});
