import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { notificationChannels } from '@/db/schema';
import { runNode } from '@/test/cli';
import { setupTestDatabase, testDatabaseUrl } from '@/test/db';
import { seededWorld } from '@/test/world';

/**
 * `npm run cli -- add-channel … --digest <0-100>` on a real database: the API's words for a bad threshold (exit 1), a
 * good one stored.
 */
const t = setupTestDatabase();
seededWorld(t);
const addChannel = (...args: string[]) =>
  runNode(
    ['scripts/cli.ts', 'add-channel', '--tenant', 'acme', '--kind', 'email', '--target', 'ops@acme.test', ...args],
    { DATABASE_URL: testDatabaseUrl(t.handle) },
  );
const channels = () => t.db.select().from(notificationChannels).where(eq(notificationChannels.tenantId, 'acme'));

describe('add-channel --digest', () => {
  it.each(['101', '-1', '1.5', 'five'])(
    'refuses --digest %s with the API’s words, exit 1, creating nothing',
    async (value) => {
      const before = (await channels()).length;
      // `--digest=-1`: the joined form, since parseArgs reads a lone "-1" as another option.
      const refused = await addChannel(`--digest=${value}`);
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toContain('Error: --digest must be a whole number from 0 (off) to 100');
      expect(refused.stdout).not.toContain('Created');
      expect(await channels()).toHaveLength(before);
    },
  );

  it('stores the threshold given, and says it', async () => {
    const done = await addChannel('--digest', '12');
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('  digest: more than 12 messages within a minute go as one');
    const id = done.stdout.match(/^Created email channel (chn_\S+) in acme\.$/m)?.[1];
    expect((await channels()).find((channel) => channel.id === id)?.digestThreshold).toBe(12);
  });
});
