import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openReplicaHandle, setupTestDatabase } from '@/test/db';

/** DATABASE_URL with `?host=/folder` reaches PostgreSQL over its Unix-domain socket, queries and LISTEN alike. */
const t = setupTestDatabase();

const one = async <T>(rows: Promise<T[]>) => (await rows)[0];

describe('PostgreSQL over its Unix-domain socket', () => {
  it('connects through the socket folder the server names, for queries and for LISTEN', async () => {
    // A server setting only the owner (superuser) may read.
    const folders = await one(
      t.owner.select({ value: sql<string>`current_setting('unix_socket_directories')` }).from(sql`(select 1) as one`),
    );
    const folder = folders!.value.split(',')[0]!.trim();
    const overSocket = await openReplicaHandle(t.handle, { host: folder });
    try {
      const peer = await one(
        overSocket.db
          .select({ address: sql<string | null>`inet_client_addr()::text`, database: sql<string>`current_database()` })
          .from(sql`(select 1) as one`),
      );
      // A Unix-domain socket has no client address; the database is the one the URL names.
      expect(peer).toEqual({ address: null, database: t.handle.name });
      const heard: string[] = [];
      const stop = await overSocket.listen('countersign_socket_test', (payload) => heard.push(payload));
      await t.db.execute(sql`select pg_notify('countersign_socket_test', 'over the socket')`);
      await expect.poll(() => heard).toEqual(['over the socket']);
      await stop();
    } finally {
      await overSocket.close();
    }
  });
});
