import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAgentKey } from '@/lib/admin/accounts';
import { revokeKey } from '@/lib/admin/agent-keys';
import type { ReadCacheStats } from '@/lib/cache/read-cache';
import { setupTestDatabase, testDatabaseUrl } from '@/test/db';
import { type SeededWorld, seedWorld } from '@/test/world';

/**
 * A revoked key is refused on every replica: two processes, each with its own database pool, read
 * cache and listener (test/cache-replica.ts, serving the real authenticateAgent), keep a key in
 * memory; it is revoked through revokeKey on a third pool, and both refuse it as soon as their
 * listener hears the commit. Their entries would otherwise live an hour, so nothing but the
 * notification can end them. The time each took is printed, not asserted (a loaded machine is slow).
 */
const t = setupTestDatabase();
if (t.driver !== 'postgres')
  throw new Error('revocation.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');

type Replica = { child: ChildProcess; url: string };
const replicas: Replica[] = [];
let world: SeededWorld;

function startReplica(): Promise<Replica> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/cache-replica.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      DATABASE_URL: testDatabaseUrl(t.handle),
      CACHE_MAX_AGE_MS: '3600000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
    child.stdout!.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      const port = /listening (\d+)/.exec(said)?.[1];
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` });
    });
    child.once('exit', (code) => reject(new Error(`test/cache-replica.ts exited with code ${code}:\n${said}`)));
  });
}

async function authenticate(replica: Replica, key: string): Promise<{ status: number; stats: ReadCacheStats }> {
  const response = await fetch(`${replica.url}/auth`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, stats: ((await response.json()) as { stats: ReadCacheStats }).stats };
}

const stats = async (replica: Replica) => (await (await fetch(`${replica.url}/stats`)).json()) as ReadCacheStats;

beforeAll(async () => {
  world = await seedWorld(t.db);
  replicas.push(...(await Promise.all([startReplica(), startReplica()])));
});

afterAll(async () => {
  await Promise.all(
    replicas.map(async ({ child }) => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }),
  );
});

describe('revoking a key with two replicas (PostgreSQL)', () => {
  it('both replicas serve the key from memory, then refuse it once revokeKey commits', async () => {
    await vi.waitFor(
      async () => expect((await Promise.all(replicas.map(stats))).map((s) => s.live)).toEqual([true, true]),
      { timeout: 30_000, interval: 20 },
    );
    const before = await Promise.all(replicas.map(stats));
    const { id, key } = await createAgentKey(t.db, {
      tenantId: 'acme',
      agentName: 'two-replicas',
      actions: ['hold_stock'],
      grants: { warehouses: ['north'] },
    });
    // Nothing read before a replica heard the key's creation is kept: wait for it, then warm.
    await vi.waitFor(
      async () =>
        expect((await Promise.all(replicas.map(stats))).map((s, i) => s.notified > before[i]!.notified)).toEqual([
          true,
          true,
        ]),
      { timeout: 30_000, interval: 5 },
    );
    for (const replica of replicas) {
      const first = await authenticate(replica, key);
      const second = await authenticate(replica, key);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.stats.hits).toBe(first.stats.hits + 1);
      expect(second.stats.misses).toBe(first.stats.misses);
    }

    const startedAt = performance.now();
    await revokeKey(t.db, 'acme', { type: 'user', id: world.userId('carol') }, id);
    const committedAt = performance.now();
    const committedWall = Date.now();
    const refusedAfterMs: (number | undefined)[] = replicas.map(() => undefined);
    await vi.waitFor(
      async () => {
        await Promise.all(
          replicas.map(async (replica, i) => {
            if (refusedAfterMs[i] === undefined && (await authenticate(replica, key)).status === 401)
              refusedAfterMs[i] = performance.now() - committedAt;
          }),
        );
        expect(refusedAfterMs.every((ms) => ms !== undefined)).toBe(true);
      },
      { timeout: 20_000, interval: 1 },
    );

    const after = await Promise.all(replicas.map(stats));
    for (const [i, replica] of replicas.entries()) {
      expect((await authenticate(replica, key)).status).toBe(401);
      // The kept entry was dropped by the change it heard, not aged out.
      expect(after[i]!.dropped).toBeGreaterThan(before[i]!.dropped);
      expect(after[i]!.live).toBe(true);
    }
    const heardMs = after.map((s) => (s.lastNotifiedAt ?? NaN) - committedWall);
    console.log(
      `[revocation] revokeKey took ${(committedAt - startedAt).toFixed(1)} ms; refused by replica 1 ` +
        `after ${refusedAfterMs[0]!.toFixed(1)} ms, ` +
        (`replica 2 after ${refusedAfterMs[1]!.toFixed(1)} ms (polled from its commit); notifications ` +
          `heard ${heardMs.map((ms) => `${ms} ms`).join(' and ')} from it (negative: before revokeKey returned)`),
    );
  }, 90_000);
});
