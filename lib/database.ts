import path from 'node:path';
import { openDatabase, type Database, type DatabaseHandle } from '@/db/client';
import { env } from '@/lib/env';

// Here rather than in db/: which database to open is a setting, and db/ imports nothing from lib/.
const globalForDb = globalThis as unknown as { countersignDb?: Promise<DatabaseHandle> };

/** The process-wide database, opened from the settings once (and kept across dev reloads). */
export function databaseHandle(): Promise<DatabaseHandle> {
  globalForDb.countersignDb ??= (() => {
    const settings = env();
    return openDatabase(
      settings.DATABASE_URL ? { url: settings.DATABASE_URL } : { dataDir: path.resolve(settings.COUNTERSIGN_DATA_DIR) },
    );
  })();
  return globalForDb.countersignDb;
}

export async function getDb(): Promise<Database> {
  return (await databaseHandle()).db;
}

export async function closeDatabase(): Promise<void> {
  const handle = globalForDb.countersignDb;
  globalForDb.countersignDb = undefined;
  if (handle) await (await handle).close();
}
