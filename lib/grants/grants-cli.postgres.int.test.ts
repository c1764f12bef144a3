import { describe, expect, it } from 'vitest';
import { decide } from '@/lib/decisions/decide';
import { runNode } from '@/test/cli';
import { setupTestDatabase, testDatabaseUrl } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { createGrant } from './create';

/** `npm run cli -- grants …` and `grants:revoke …` on real PostgreSQL: what is printed, and the exit codes. */
const t = setupTestDatabase();
if (t.driver !== 'postgres')
  throw new Error('grants-cli.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
const systems = setupDemoSystems();
const seeded = seededWorld(t);

const cli = (...args: string[]) => runNode(['scripts/cli.ts', ...args], { DATABASE_URL: testDatabaseUrl(t.handle) });

describe('grants', () => {
  it('lists a grant with its terms and use, revokes it once (exit 0), then refuses (exit 1)', async () => {
    const body = {
      requestId: 'req_cli_grants',
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    };
    const source = (await submitAs(t.db, systems.client, seeded.acme, body)).proposal;
    await decide(t.db, systems.client, {
      userId: seeded.world.userId('alice'),
      proposalId: source.id,
      request: { decision: 'approve', payloadHash: source.payloadHash },
    });
    const grant = await createGrant(t.db, {
      tenantId: 'acme',
      userId: seeded.world.userId('alice'),
      request: { proposalId: source.id, minutes: 30, maxCount: 4, sameResource: true, reason: 'Weekend sale' },
    });

    const listed = await cli('grants', '--tenant', 'acme', '--active');
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toContain(`${grant.id}  active  hold_stock by agent acme-support-bot`);
    expect(listed.stdout).toContain('sku:filter-blue');
    expect(listed.stdout).toContain('0 of 4 used; granted by Alice');
    expect(listed.stdout).toContain('"Weekend sale"');

    expect(await cli('grants:revoke', grant.id, '--reason', 'Sale over')).toMatchObject({
      code: 0,
      stdout: `Revoked ${grant.id} (0 of 4 used).\n`,
    });
    expect((await cli('grants', '--tenant', 'acme', '--active')).stdout).toBe('No active grants in acme.\n');
    expect((await cli('grants', '--tenant', 'acme')).stdout).toContain(`${grant.id}  revoked`);
    const again = await cli('grants:revoke', grant.id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no longer covers anything');
    // Five CLI processes, each starting tsx: on a loaded 2-core runner that alone can pass 30 s.
  }, 120_000);

  it.each([
    [['grants'], 2, '--tenant'],
    [['grants', '--tenant', 'nope'], 1, 'No tenant "nope"'],
    [['grants:revoke'], 2, 'grant id'],
    [['grants:revoke', 'g_nope'], 1, 'No grant with that id'],
  ])('%j exits %i naming %s', async (args, code, words) => {
    const run = await cli(...args);
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(words);
  });
});
