import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditHeads, tenants } from '@/db/schema';
import { storedTreeSize } from '@/lib/audit/tlog/store';
import { recordStateChange } from '@/lib/events/record';
import { setupTestDatabase } from '@/test/db';
import { numberedChange } from '@/test/fixtures/events';
import { auditChainer } from './chain-audit';

/** The worker's chainer links a tenant's pending events and grows its Merkle tree with them. */
const t = setupTestDatabase();

beforeAll(async () => {
  await t.db.insert(tenants).values({ id: 'grown', name: 'grown' });
});

describe('auditChainer', () => {
  it('chains the pending events and extends the tree to the new head', async () => {
    for (let n = 0; n < 7; n++)
      await t.db.transaction((tx) => recordStateChange(tx, numberedChange('grown', 'prp_grown', n)));
    const errors: unknown[] = [];
    const chainer = auditChainer(t.db, (error) => errors.push(error));
    chainer.wake('grown');
    await chainer.idle();
    expect(errors).toEqual([]);
    const [head] = await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, 'grown'));
    expect(head?.seq).toBe(7);
    expect(await storedTreeSize(t.db, 'grown')).toBe(7);
  });
});
