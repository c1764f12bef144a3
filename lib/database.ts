import path from 'node:path';
import { type Database, type DatabaseHandle, openDatabase } from '@/db/client';
import { attachReadCache } from '@/lib/cache/read-cache';
import { env } from '@/lib/env';

// Here rather than in db/: which database to open is a setting, and db/ imports nothing from lib/.
const globalForDb = globalThis as unknown as { countersignDb?: Promise<DatabaseHandle> };

/**
 * The process-wide database, opened from the settings once (and kept across dev reloads), with the
 * process's read cache of policies, contracts and agent keys (lib/cache/read-cache.ts), which
 * answers once it listens for their changes.
 */
export function databaseHandle(): Promise<DatabaseHandle> {
  globalForDb.countersignDb ??= (async () => {
    const settings = env();
    const handle = await openDatabase(
      settings.DATABASE_URL ? { url: settings.DATABASE_URL } : { dataDir: path.resolve(settings.COUNTERSIGN_DATA_DIR) },
    );
    const cache = attachReadCache(handle.db, handle.listen, {
      // Said once, and not for a database that is down at start: that one stops the process with its cause.
      onListenFailed: (_error, failures) => {
        if (failures === 3)
          console.error(
            '[countersign] listening for changes failed; policies, contracts and agent keys are read from the ' +
              'database until it succeeds',
          );
      },
    });
    return { ...handle, close: () => cache.stop().then(() => handle.close()) };
  })();
  return globalForDb.countersignDb;
}

/**
 * Applies any missing migration, first through MIGRATION_DATABASE_URL (the owner role) on a
 * connection of its own when that is set; then the process's own database (DATABASE_URL: the
 * application's role) finds nothing left to apply, or applies it when it may (one role, PGlite).
 * Every entry point (server, worker, CLI, `npm run migrate`) calls it before its first query.
 */
export async function migrateDatabase(handle: DatabaseHandle): Promise<void> {
  const migrationUrl = env().MIGRATION_DATABASE_URL;
  if (migrationUrl) {
    const owner = await openDatabase({ url: migrationUrl });
    try {
      await owner.migrate();
    } finally {
      await owner.close();
    }
  }
  await handle.migrate();
}

export async function getDb(): Promise<Database> {
  return (await databaseHandle()).db;
}

export async function closeDatabase(): Promise<void> {
  const handle = globalForDb.countersignDb;
  globalForDb.countersignDb = undefined;
  if (handle) await (await handle).close();
}
