import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { agentKeys } from '@/db/schema';
import { revokeKey } from '@/lib/admin/agent-keys';
import { setupCommandWorld } from '@/test/fixtures/commands';
import { proposalRow } from '@/test/queries';

// The executor re-checks Authority as it stands when it runs, with the intake's own gate.
const w = setupCommandWorld();
const ADMIN = { type: 'user' as const, id: 'usr_admin' };

const keyOf = (id: string) => w.t.db.select().from(agentKeys).where(eq(agentKeys.id, id));

// Each test changes a demo key; the next starts from the seeded one again.
afterEach(async () => {
  await w.t.db
    .update(agentKeys)
    .set({ revokedAt: null, allowedActions: ['hold_stock', 'issue_refund'], grants: { warehouses: ['north'] } });
});

describe('authority at execution', () => {
  it('a key revoked after approval: the command fails not_authorized and nothing is written', async () => {
    const { proposal, command } = await w.approvedRefund(120);
    const before = await w.orderRefunds();
    expect(await revokeKey(w.t.db, 'acme', ADMIN, proposal.agentKeyId!)).toMatchObject({ state: 'revoked' });
    const answer = await w.execute(command.jws);
    expect(answer).toMatchObject({ status: 'failed', errorCode: 'not_authorized' });
    expect(await w.orderRefunds()).toEqual(before);
    expect(await proposalRow(w.t.db, proposal.id)).toMatchObject({ status: 'failed', statusReason: answer.reason });
    expect(await w.executionsOf(proposal.id)).toMatchObject([{ status: 'failed', errorCode: 'not_authorized' }]);
  });

  it.each([
    ['the warehouse grant removed', { grants: { warehouses: ['south'] } }],
    ['the action no longer allowed', { allowedActions: ['issue_refund'] }],
  ])('%s after approval: the hold fails not_authorized and nothing is written', async (_, change) => {
    const { proposal, command } = await w.approvedHold(1);
    const before = await w.skuHolds();
    await w.t.db.update(agentKeys).set(change).where(eq(agentKeys.id, proposal.agentKeyId!));
    const answer = await w.execute(command.jws, 'inventory');
    expect(answer).toMatchObject({ status: 'failed', errorCode: 'not_authorized' });
    expect(await w.skuHolds()).toEqual(before);
    expect(await w.executionsOf(proposal.id)).toMatchObject([{ status: 'failed', errorCode: 'not_authorized' }]);
  });

  it("another tenant's key revoked: an untouched key still executes", async () => {
    const globex = await w.approvedRefund(100, 'ord_9001', 'USD', 'globex');
    const { proposal, command } = await w.approvedRefund(110);
    await revokeKey(w.t.db, 'globex', ADMIN, globex.proposal.agentKeyId!);
    expect(await w.execute(command.jws)).toMatchObject({ status: 'succeeded' });
    expect((await w.orderRefunds()).filter((refund) => refund.idempotencyKey === `cs.${proposal.id}`)).toHaveLength(1);
    expect(await keyOf(proposal.agentKeyId!)).toMatchObject([{ revokedAt: null }]);
  });
});
