import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { explainDatabaseFailure } from './connection-failure';
import { notificationListener } from './listener';
import { preparingClient } from './prepared';
import * as schema from './schema';
import { socketAware } from './socket-url';

/** Either driver's database, or a transaction on it: every query takes one of these first. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export type DatabaseHandle = {
  db: Database;
  driver: 'postgres' | 'pglite';
  migrate(): Promise<void>;
  close(): Promise<void>;
  /**
   * LISTENs on a PostgreSQL notification channel (PGlite delivers its own NOTIFYs the same way);
   * answers the function that stops listening. PostgreSQL is listened to on a connection of its
   * own, listened to again after a reconnect; notifications sent meanwhile are lost, which
   * `onState` says: `false` when the connection is lost, `true` once it listens (again). PGlite
   * lives in this process and never loses one.
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onState?: (listening: boolean) => void,
  ): Promise<() => Promise<void>>;
  /** PGlite only: the whole database as a tarball, to open copies of with `{ memory: true, from }`. */
  dump?: () => Promise<Blob>;
};

/**
 * Where the database lives: a PostgreSQL server, a PGlite folder, or PGlite in memory — empty, or
 * a copy of a PGlite `dump()` (a migrated template, so each opener skips initdb).
 */
export type DatabaseTarget = { url: string } | { dataDir: string } | { memory: true; from?: Blob };

/** The `application_name` of the connection that LISTENs (pg_stat_activity names it). */
export const LISTEN_APPLICATION_NAME = 'countersign_listen';

const MIGRATIONS_FOLDER = path.join(process.cwd(), 'drizzle');

export async function openDatabase(target: DatabaseTarget): Promise<DatabaseHandle> {
  if ('url' in target) return openPostgres(target.url);
  if ('dataDir' in target) return openPglite({ dataDir: target.dataDir });
  return openPglite({ from: target.from });
}

async function openPostgres(url: string): Promise<DatabaseHandle> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  const server = socketAware(url);
  const client = postgres(server.url, {
    max: 10,
    host: server.host,
    onnotice: () => {},
    connection: { application_name: 'countersign' },
  });
  const db = drizzle(preparingClient(client), { schema });
  // Opened on the first listen; never recycled (idle connections stay open by default), so it keeps listening.
  let listener: ReturnType<typeof notificationListener> | undefined;
  const listenerOf = () =>
    (listener ??= notificationListener((events) =>
      postgres(server.url, {
        max: 1,
        host: server.host,
        max_lifetime: null,
        fetch_types: false,
        onnotice: () => {},
        connection: { application_name: LISTEN_APPLICATION_NAME },
        ...events,
      }),
    ));
  return {
    db: db as unknown as Database,
    driver: 'postgres',
    // The first query of every entry point: a server that cannot be used is named with its cause here.
    migrate: async () => {
      try {
        if (await migrationsApplied(db)) return;
        await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
      } catch (error) {
        throw explainDatabaseFailure(error, url);
      }
    },
    close: async () => {
      await Promise.all([client.end({ timeout: 5 }), listener?.close()]);
    },
    listen: (channel, onNotify, onState) => listenerOf().listen(channel, { onNotify, onState }),
  };
}

/**
 * Whether the newest migration is applied already. Then nothing is migrated, not even drizzle's
 * `CREATE SCHEMA IF NOT EXISTS`: the application's role (`countersign_app`, db/roles.ts) may read
 * the bookkeeping and change no schema, so it starts only once the owner has migrated.
 */
async function migrationsApplied(db: PgDatabase<PgQueryResultHKT, typeof schema>): Promise<boolean> {
  const { readMigrationFiles } = await import('drizzle-orm/migrator');
  const newest = Math.max(
    ...readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).map((migration) => migration.folderMillis),
  );
  const [table] = (await db.execute(
    sql`select to_regclass('drizzle.__drizzle_migrations') is not null as "exists"`,
  )) as unknown as { exists: boolean }[];
  if (!table?.exists) return false;
  const [applied] = (await db.execute(
    sql`select max(created_at) as "newest" from drizzle.__drizzle_migrations`,
  )) as unknown as { newest: string | null }[];
  return applied?.newest != null && Number(applied.newest) >= newest;
}

async function openPglite({ dataDir, from }: { dataDir?: string; from?: Blob }): Promise<DatabaseHandle> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const releaseLock = dataDir ? lockDataDir(dataDir) : () => {};
  try {
    const client = dataDir ? new PGlite(path.join(dataDir, 'pglite')) : new PGlite(from ? { loadDataDir: from } : {});
    await client.waitReady;
    const db = drizzle(client, { schema });
    return {
      db: db as unknown as Database,
      driver: 'pglite',
      dump: () => client.dumpDataDir('none'),
      migrate: () => migrate(db, { migrationsFolder: MIGRATIONS_FOLDER }),
      close: async () => {
        try {
          await client.close();
        } finally {
          releaseLock();
        }
      },
      async listen(channel, onNotify, onState) {
        const unlisten = await client.listen(channel, onNotify);
        onState?.(true);
        return () => unlisten();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

export class DatabaseInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is open in another process (pid ${pid}). ` +
        'Only one process can open it at a time: stop that process (the running dashboard), ' +
        'or run against PostgreSQL by setting DATABASE_URL.',
    );
    this.name = 'DatabaseInUseError';
  }
}

/** PGlite folders may be opened by one process only; a second opener would corrupt them. */
function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'pglite.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(fs.readFileSync(lockPath, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new DatabaseInUseError(dataDir, holder);
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock ${lockPath}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
