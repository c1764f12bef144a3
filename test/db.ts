import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import postgres from 'postgres';
import { afterAll, beforeAll, inject } from 'vitest';
import { type Database, type DatabaseHandle, openDatabase } from '@/db/client';
import { preparingClient, withUnsafe } from '@/db/prepared';
import { APP_ROLE } from '@/db/roles';

export type TestDriver = 'pglite' | 'postgres';

/** The driver an integration project runs on (set by vitest.config.ts through COUNTERSIGN_TEST_DRIVER). */
export function testDriver(): TestDriver {
  const driver = process.env.COUNTERSIGN_TEST_DRIVER;
  if (driver === 'pglite' || driver === 'postgres') return driver;
  throw new Error(
    'COUNTERSIGN_TEST_DRIVER is not set: run integration tests through a vitest project ' +
      '(--project integration-pglite or --project integration-postgres).',
  );
}

function requireDatabaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) {
    throw new Error('The postgres test driver needs DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres).');
  }
  return url;
}

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function onServer<T>(url: string, run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    return await run(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export type TestDatabase = DatabaseHandle & {
  /** The database's name on the server (PostgreSQL only). */
  name?: string;
  /**
   * The same database as the owner of its tables, for what the application may not do: tampering
   * with audit rows, ANALYZE. On PostgreSQL `db` is the application's role (`countersign_app`), as
   * in a deployment (docs/operations.md, "The two database roles"); PGlite has one user, so there
   * it is `db`.
   */
  owner: Database;
  /** Closes the connection and, on PostgreSQL, drops the database. */
  dispose(): Promise<void>;
};

/**
 * A fresh, migrated database on the project's driver: its own cs_test_* database, migrated by the
 * server's user and used as the application's role, or PGlite in memory.
 */
export async function createTestDatabase(driver: TestDriver = testDriver()): Promise<TestDatabase> {
  if (driver === 'pglite') {
    const handle = await openDatabase({ memory: true, from: pgliteTemplate() });
    try {
      await handle.migrate();
    } catch (error) {
      await handle.close();
      throw error;
    }
    return { ...handle, owner: handle.db, dispose: () => handle.close() };
  }

  const serverUrl = requireDatabaseUrl();
  const name = `cs_test_${randomBytes(8).toString('hex')}`;
  await onServer(serverUrl, (sql) => sql.unsafe(`CREATE DATABASE "${name}"`));
  const drop = () => onServer(serverUrl, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  const opened: DatabaseHandle[] = [];
  const closeAll = () => Promise.all(opened.map((handle) => handle.close()));
  let handle: DatabaseHandle;
  let owner: DatabaseHandle;
  try {
    owner = await openDatabase({ url: withDatabaseName(serverUrl, name) });
    opened.push(owner);
    await owner.migrate();
    handle = await openDatabase({ url: asAppRole(withDatabaseName(serverUrl, name)) });
    opened.push(handle);
  } catch (error) {
    await closeAll();
    await drop();
    throw error;
  }
  return {
    ...handle,
    name,
    owner: owner.db,
    dispose: async () => {
      try {
        await closeAll();
      } finally {
        await drop();
      }
    },
  };
}

/** A PostgreSQL URL as the application's role (made by test/postgres-global-setup.ts; the server trusts it). */
function asAppRole(url: string): string {
  const parsed = new URL(url);
  parsed.username = APP_ROLE;
  parsed.password = '';
  return parsed.toString();
}

/** The migrated template test/pglite-global-setup.ts made, when the run has one. */
function pgliteTemplate(): Blob | undefined {
  const file = inject('pgliteTemplate');
  return file ? new Blob([fs.readFileSync(file)]) : undefined;
}

export type TestDatabaseRef = {
  /** The code under test's database: on PostgreSQL as the application's role. */
  readonly db: Database;
  /** The same database as its owner (TestDatabase.owner): for tampering and ANALYZE only. */
  readonly owner: Database;
  readonly handle: TestDatabase;
  readonly driver: TestDriver;
};

/**
 * One fresh database for the calling test file: created in beforeAll, closed (and dropped) in
 * afterAll. Read `.db` inside tests and hooks, not at module level.
 */
export function setupTestDatabase(): TestDatabaseRef {
  const driver = testDriver();
  let current: TestDatabase | undefined;
  beforeAll(async () => {
    current = await createTestDatabase(driver);
  });
  afterAll(async () => {
    const handle = current;
    current = undefined;
    await handle?.dispose();
  });
  const ready = () => {
    if (!current) throw new Error('The test database is not open yet: use it inside tests or hooks.');
    return current;
  };
  return {
    driver,
    get db() {
      return ready().db;
    },
    get handle() {
      return ready();
    },
    get owner() {
      return ready().owner;
    },
  };
}

/** The connection URL of a PostgreSQL test database as the application's role, for another process (a worker, the CLI) to open. */
export function testDatabaseUrl(handle: TestDatabase): string {
  if (handle.driver !== 'postgres' || !handle.name)
    throw new Error('Only a PostgreSQL test database can be shared with another process.');
  return asAppRole(withDatabaseName(requireDatabaseUrl(), handle.name));
}

/** The connection URL of a PostgreSQL test database as the server's user (the superuser that made it). */
export function ownerDatabaseUrl(handle: TestDatabase): string {
  if (handle.driver !== 'postgres' || !handle.name)
    throw new Error('Only a PostgreSQL test database has an owner URL.');
  return withDatabaseName(requireDatabaseUrl(), handle.name);
}

/**
 * A second, independent connection pool to the same test database, as another app replica would
 * have (PostgreSQL only: PGlite lives inside one process). Close it before the file ends.
 */
export async function openReplicaHandle(
  handle: TestDatabase,
  searchParams: Record<string, string> = {},
): Promise<DatabaseHandle> {
  if (handle.driver !== 'postgres' || !handle.name) throw new Error('A replica handle needs the postgres test driver.');
  const url = new URL(testDatabaseUrl(handle));
  for (const [name, value] of Object.entries(searchParams)) url.searchParams.set(name, value);
  return openDatabase({ url: url.toString() });
}

export type CountingDatabase = {
  /** The test database through a pool that counts what drizzle sends (BEGIN/COMMIT not included). */
  readonly db: Database;
  /** How many statements `run` sent through `db`. */
  statementsOf(run: () => Promise<unknown>): Promise<number>;
  /**
   * How many round trips `run` waited for: statements sent while none of `db`'s were in flight
   * (statements sent together pipeline and count once; BEGIN/COMMIT not included).
   */
  roundTripsOf(run: () => Promise<unknown>): Promise<number>;
  /** The statements `run` sent through `db`, with their parameters, in order. */
  statementsSentBy(run: () => Promise<unknown>): Promise<SentStatement[]>;
  /** PostgreSQL's executed plan of one sent statement (EXPLAIN (ANALYZE, FORMAT JSON)): its top node. */
  analyzedPlan(statement: SentStatement): Promise<PlanNode>;
};

export type SentStatement = { query: string; params: unknown[] };

/** A node of an EXPLAIN (FORMAT JSON) plan, the fields read here named. */
export type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
};

/**
 * For a PostgreSQL test file: a second pool to its database that counts statements, so the
 * statement budgets of hot paths can be asserted. Opened and closed with the file.
 */
export function setupCountingDatabase(t: TestDatabaseRef, file: string): CountingDatabase {
  if (t.driver !== 'postgres') throw new Error(`${file} needs PostgreSQL: run it with --project integration-postgres.`);
  let client: postgres.Sql | undefined;
  let db: Database | undefined;
  const sent: SentStatement[] = [];
  let inFlight = 0;
  let roundTrips = 0;
  beforeAll(async () => {
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const schema = await import('@/db/schema');
    client = postgres(testDatabaseUrl(t.handle), { max: 4, onnotice: () => {} });
    const counted = withUnsafe(
      preparingClient(client),
      (unsafe) =>
        ((query: string, params?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) => {
          const pending = unsafe(query, params, options);
          // Sent when awaited (then): a statement sent while none is in flight starts a round trip.
          const watched: typeof pending = new Proxy(pending, {
            get(target, property) {
              if (property === 'values') return () => (target.values(), watched);
              if (property === 'then') {
                return (...handlers: Parameters<typeof target.then>) => {
                  if (inFlight++ === 0) roundTrips++;
                  const settled = () => void inFlight--;
                  return target.then(...handlers).finally(settled);
                };
              }
              return Reflect.get(target, property);
            },
          });
          return watched;
        }) as typeof unsafe,
    );
    db = drizzle(counted, {
      schema,
      logger: { logQuery: (query, params) => void sent.push({ query, params }) },
    }) as unknown as Database;
  });
  afterAll(async () => {
    await client?.end({ timeout: 5 });
  });
  return {
    get db() {
      if (!db) throw new Error('The counting database is not open yet: use it inside tests.');
      return db;
    },
    async statementsOf(run) {
      return (await this.statementsSentBy(run)).length;
    },
    async roundTripsOf(run) {
      const before = roundTrips;
      await run();
      return roundTrips - before;
    },
    async statementsSentBy(run) {
      const before = sent.length;
      await run();
      return sent.slice(before);
    },
    async analyzedPlan({ query, params }) {
      const [row] = await client!.unsafe(
        `explain (analyze, format json) ${query}`,
        params as postgres.ParameterOrJSON<never>[],
      );
      return (row!['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan;
    },
  };
}
