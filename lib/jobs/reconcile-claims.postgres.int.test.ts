import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { resourceClaims } from '@/db/schema';
import { readClaims } from '@/lib/gates/claims';
import { runNode } from '@/test/cli';
import { setupTestDatabase, testDatabaseUrl } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';

/** `npm run cli -- claims:reconcile` on a real database: a corrupted claims row is set back and reported. */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);

const reconcile = () => runNode(['scripts/cli.ts', 'claims:reconcile'], { DATABASE_URL: testDatabaseUrl(t.handle) });

describe('claims:reconcile', () => {
  it('repairs a corrupted row, printing its ids and both values, and then finds nothing to repair', async () => {
    const body = {
      requestId: 'req_cli_claims',
      action: 'issue_refund',
      contractVersion: 1,
      args: { orderId: 'ord_1842', amountMinor: 500, currency: 'USD', reason: 'Customer requested a refund' },
    };
    await submitAs(t.db, systems.client, seeded.acme, body);
    const row = and(eq(resourceClaims.tenantId, 'acme'), eq(resourceClaims.resourceKey, 'order:ord_1842'));
    await t.db.update(resourceClaims).set({ openCount: 4, openTotal: '1' }).where(row);

    const repaired = await reconcile();
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout.trim().split('\n')).toEqual([
      'claims row repaired {"tenantId":"acme","resourceKey":"order:ord_1842","held":{"count":4,"total":1},"actual":{"count":1,"total":500}}',
      'Repaired 1 claims row(s).',
    ]);
    expect(await readClaims(t.db, 'acme', 'order:ord_1842')).toEqual({ count: 1, total: 500 });

    const again = await reconcile();
    expect(again.stdout.trim()).toBe('Every claims row matches its open proposals.');
  });
});
