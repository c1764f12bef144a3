import { describe, expect, it } from 'vitest';
import { decisions, proposals, proposalViews } from '@/db/schema';
import { newId } from '@/lib/ids';
import { runNode } from '@/test/cli';
import { setupTestDatabase, testDatabaseUrl } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';

/**
 * `npm run cli -- oversight --tenant <id> [--days N]` on real PostgreSQL: the figures printed, refusals with their exit
 * codes.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);

const oversight = (...args: string[]) =>
  runNode(['scripts/cli.ts', 'oversight', ...args], { DATABASE_URL: testDatabaseUrl(t.handle) });

describe('oversight', () => {
  it('prints per approver, action and channel, computed by PostgreSQL, exit 0', async () => {
    const body = {
      requestId: 'req_cli_oversight',
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    };
    const template = (await submitAs(t.db, systems.client, seeded.acme, body)).proposal;
    const bob = seeded.world.userId('bob');
    const now = Date.now();
    for (const [n, dwellSeconds] of [
      [1, 2],
      [2, 4],
    ] as const) {
      const id = newId('prp');
      const decidedAt = new Date(now - n * 3_600_000);
      await t.db.insert(proposals).values({
        ...template,
        id,
        requestId: null,
        status: 'approved',
        createdAt: new Date(decidedAt.getTime() - 60_000),
        decidedAt,
      });
      await t.db.insert(decisions).values({
        id: newId('dec'),
        tenantId: 'acme',
        proposalId: id,
        userId: bob,
        decision: 'approve',
        payloadHash: template.payloadHash,
        createdAt: decidedAt,
      });
      await t.db.insert(proposalViews).values({
        tenantId: 'acme',
        proposalId: id,
        userId: bob,
        channel: 'notification',
        firstSeenAt: new Date(decidedAt.getTime() - dwellSeconds * 1000),
      });
    }
    const done = await oversight('--tenant', 'acme', '--days', '7');
    expect(done.code, done.stderr).toBe(0);
    const lines = done.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Oversight of the last 7 day\(s\): /);
    expect(lines).toContain('Rubber-stamp alarm: at least 20 decisions, 98 % approved, median dwell under 5 s');
    // Dwell 2 s and 4 s: median 3 s, 10th percentile 2 + 0.1 × 2 = 2.2 s; both waited 60 s.
    expect(lines).toContain(
      `  Bob (${bob}): 2 decision(s), 100 % approved, waiting → decided p50 1 min 0 s p95 1 min 0 s, dwell ` +
        `p50 3.0 s p10 2.2 s`,
    );
    expect(lines).toContain(
      '  notification: 2 decision(s), 100 % approved, waiting → decided p50 1 min 0 s p95 1 min 0 s, dwell p50 ' +
        '3.0 s p10 2.2 s',
    );
  });

  it('refuses an unknown tenant with exit 1 and a bad --days with exit 2', async () => {
    const unknown = await oversight('--tenant', 'nosuch');
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'Error: No tenant "nosuch".']);
    const days = await oversight('--tenant', 'acme', '--days', '91');
    expect(days.code).toBe(2);
    expect(days.stderr).toContain('--days takes a whole number of days from 1 to 90');
  });
});
