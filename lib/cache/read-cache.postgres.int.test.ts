/**
 * The read cache of one replica (its own connection pool and listener, as another server has)
 * while changes are written through another pool (PostgreSQL): what it keeps goes when the
 * writer's transaction commits, by the notification alone (the writers' pool has no cache to
 * forget them in, and entries here would otherwise live an hour); and while its listener is lost, nothing it kept is
 * served.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DatabaseHandle, LISTEN_APPLICATION_NAME } from '@/db/client';
import { agentKeys } from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import { createAgentKey } from '@/lib/admin/accounts';
import { revokeKey } from '@/lib/admin/agent-keys';
import { authenticateAgent } from '@/lib/agents/authenticate';
import { tenantActions } from '@/lib/definitions/catalog';
import { setContractStatus } from '@/lib/definitions/set-status';
import { publishPolicy } from '@/lib/policy/publish';
import { loadPolicy } from '@/lib/policy/routing';
import { openReplicaHandle, setupTestDatabase } from '@/test/db';
import { agentRequest, type SeededWorld, seedWorld } from '@/test/world';
import { type AttachedReadCache, attachReadCache } from './read-cache';

const t = setupTestDatabase();
if (t.driver !== 'postgres')
  throw new Error('read-cache.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');

const HOUR = 3_600_000;
let world: SeededWorld;
let replica: DatabaseHandle;
let attached: AttachedReadCache;

beforeAll(async () => {
  world = await seedWorld(t.db);
  replica = await openReplicaHandle(t.handle);
  attached = attachReadCache(replica.db, replica.listen, { maxAgeMs: HOUR });
});
afterAll(async () => {
  await attached.stop();
  await replica.close();
});

const live = () => vi.waitFor(() => expect(attached.cache.stats().live).toBe(true), { timeout: 20_000, interval: 10 });

/**
 * Runs a change on the writers' pool and waits until the replica has heard it (then nothing read before it is kept).
 */
async function heard<T>(change: () => Promise<T>): Promise<T> {
  const before = attached.cache.stats().notified;
  const result = await change();
  await vi.waitFor(() => expect(attached.cache.stats().notified).toBeGreaterThan(before), {
    timeout: 20_000,
    interval: 5,
  });
  return result;
}
const refund = findAction('issue_refund')!;

/** Ends this database's listening connections, as a restart or a network fault would. */
async function dropListeners(): Promise<number> {
  // In the select list, so it runs only on the rows the filter kept.
  const rows = await t.db
    .select({ ended: sql<boolean>`pg_terminate_backend(pid)` })
    .from(sql`pg_stat_activity`)
    .where(sql`datname = current_database() and application_name = ${LISTEN_APPLICATION_NAME}`);
  return rows.filter((row) => row.ended).length;
}

describe('the read cache of a replica (PostgreSQL)', () => {
  it('reads through until its listener listens', async () => {
    const other = await openReplicaHandle(t.handle);
    const fresh = attachReadCache(other.db, other.listen, { maxAgeMs: HOUR });
    try {
      // Listening takes a round trip: reads started at once go to the database, and nothing they read is kept.
      await Promise.all([loadPolicy(other.db, 'acme', refund), loadPolicy(other.db, 'acme', refund)]);
      expect(fresh.cache.stats()).toMatchObject({ bypassed: 2, hits: 0, misses: 0, entries: 0 });
    } finally {
      await fresh.stop();
      await other.close();
    }
  });

  it('forgets a policy, a rollout and a key when another pool commits a change to them', async () => {
    await live();
    const { id, key } = await heard(() =>
      createAgentKey(t.db, { tenantId: 'acme', agentName: 'replica-kept', actions: ['hold_stock'] }),
    );
    expect((await loadPolicy(replica.db, 'acme', refund)).version).toBe(2);
    expect(
      (await tenantActions(replica.db, 'acme')).find((a) => a.name === 'hold_stock')!.contracts.map((c) => c.status),
    ).toEqual(['current', 'shadow']);
    expect(await authenticateAgent(replica.db, agentRequest(key))).toMatchObject({ keyId: id });
    const warm = attached.cache.stats();
    await loadPolicy(replica.db, 'acme', refund);
    await tenantActions(replica.db, 'acme');
    await authenticateAgent(replica.db, agentRequest(key));
    expect(attached.cache.stats().hits - warm.hits).toBe(3);

    const rules = [
      {
        id: 'two',
        description: 'Two approvers',
        when: null,
        outcome: 'needs_approval' as const,
        approvals: 2,
        role: 'approver' as const,
      },
    ];
    await publishPolicy(
      t.db,
      { tenantId: 'acme', action: 'issue_refund', version: 3, rules },
      { type: 'system', id: 'test' },
    );
    await setContractStatus(t.db, {
      tenantId: 'acme',
      userId: world.userId('carol'),
      action: 'hold_stock',
      version: 2,
      request: { status: 'retired' },
    });
    await revokeKey(t.db, 'acme', { type: 'user', id: world.userId('carol') }, id);

    await vi.waitFor(
      async () => {
        expect((await loadPolicy(replica.db, 'acme', refund)).version).toBe(3);
        expect(
          (await tenantActions(replica.db, 'acme'))
            .find((a) => a.name === 'hold_stock')!
            .contracts.map((c) => c.status),
        ).toEqual(['current', 'retired']);
        expect(await authenticateAgent(replica.db, agentRequest(key))).toBeUndefined();
      },
      { timeout: 20_000, interval: 5 },
    );
    expect(attached.cache.stats().dropped - warm.dropped).toBeGreaterThanOrEqual(3);
  });

  it('serves nothing it kept from before its listener was lost, while lost or after it listens again', async () => {
    await live();
    const { id, key } = await heard(() =>
      createAgentKey(t.db, { tenantId: 'acme', agentName: 'replica-lost', actions: ['hold_stock'] }),
    );
    await authenticateAgent(replica.db, agentRequest(key));
    const kept = attached.cache.stats();
    expect(await authenticateAgent(replica.db, agentRequest(key))).toMatchObject({ keyId: id });
    expect(attached.cache.stats().hits).toBe(kept.hits + 1);

    expect(await dropListeners()).toBeGreaterThanOrEqual(1);
    await vi.waitFor(() => expect(attached.cache.stats().resets).toBeGreaterThan(kept.resets), {
      timeout: 20_000,
      interval: 5,
    });
    // Revoked behind the cache's back (no notification): whatever the listener's state now, the key was not kept.
    await t.db.update(agentKeys).set({ revokedAt: new Date() }).where(eq(agentKeys.id, id));
    expect(await authenticateAgent(replica.db, agentRequest(key))).toBeUndefined();

    await live();
    expect(attached.cache.stats().resets).toBeGreaterThanOrEqual(kept.resets + 2);
    expect(await authenticateAgent(replica.db, agentRequest(key))).toBeUndefined();
  });
});
