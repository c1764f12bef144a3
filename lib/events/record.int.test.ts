import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditHeads, outbox, tenants } from '@/db/schema';
import { setupTestDatabase } from '@/test/db';
import { auditChain, rowCounts } from '@/test/queries';
import { recordStateChange, type StateChange } from './record';

const t = setupTestDatabase();
const TENANT = 'acme';

beforeAll(async () => {
  await t.db.insert(tenants).values({ id: TENANT, name: 'Acme' });
});

const change = (proposalId: string, occurredAt: Date): StateChange => ({
  tenantId: TENANT,
  type: 'proposal.expired',
  actor: { type: 'system', id: 'expiry' },
  proposalId,
  payloadHash: 'sha256:00',
  reasonCode: 'expired',
  contractVersion: 1,
  data: { note: 'test' },
  occurredAt,
  outbox: { topic: 'proposal.expired', body: { proposalId, status: 'expired' } },
});

async function head() {
  const [row] = await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, TENANT));
  return row;
}

describe('recordStateChange', () => {
  it("writes the outbox row and the audit event in the caller's transaction", async () => {
    const before = await rowCounts(t.db);
    const at = new Date('2026-01-02T03:04:05.000Z');
    await t.db.transaction(async (tx) => {
      await recordStateChange(tx, change('prp_committed', at));
      // Both rows already exist inside the transaction, before it commits.
      expect(await rowCounts(tx)).toMatchObject({ auditEvents: before.auditEvents + 1, outbox: before.outbox + 1 });
    });
    expect(await rowCounts(t.db)).toMatchObject({ auditEvents: before.auditEvents + 1, outbox: before.outbox + 1 });
    const [row] = await t.db.select().from(outbox).where(eq(outbox.proposalId, 'prp_committed'));
    expect(row).toMatchObject({
      tenantId: TENANT,
      topic: 'proposal.expired',
      body: { proposalId: 'prp_committed', status: 'expired' },
      createdAt: at,
    });
    expect(row?.id).toMatch(/^obx_/);
    const appended = (await auditChain(t.db, TENANT)).at(-1);
    expect(appended).toMatchObject({
      type: 'proposal.expired',
      actorType: 'system',
      actorId: 'expiry',
      proposalId: 'prp_committed',
      payloadHash: 'sha256:00',
      reasonCode: 'expired',
      contractVersion: 1,
      data: { note: 'test' },
    });
    expect(await head()).toMatchObject({ seq: appended?.seq, hash: appended?.hash });
  });

  it('writes neither row when the transaction rolls back', async () => {
    const before = await rowCounts(t.db);
    const headBefore = await head();
    await expect(
      t.db.transaction(async (tx) => {
        await recordStateChange(tx, change('prp_rolled_back', new Date()));
        throw new Error('the state change failed after recording');
      }),
    ).rejects.toThrow('the state change failed after recording');
    expect(await rowCounts(t.db)).toEqual(before);
    expect(await t.db.select().from(outbox).where(eq(outbox.proposalId, 'prp_rolled_back'))).toEqual([]);
    expect(await head()).toEqual(headBefore);
  });

  it('writes the audit event alone when the change notifies nobody (outbox: false)', async () => {
    const before = await rowCounts(t.db);
    await t.db.transaction((tx) =>
      recordStateChange(tx, { ...change('prp_silent', new Date()), type: 'proposal.extended', outbox: false }),
    );
    expect(await rowCounts(t.db)).toMatchObject({ auditEvents: before.auditEvents + 1, outbox: before.outbox });
    expect((await auditChain(t.db, TENANT)).at(-1)).toMatchObject({
      type: 'proposal.extended',
      proposalId: 'prp_silent',
    });
  });
});
