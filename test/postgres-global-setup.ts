import postgres from 'postgres';
import { APP_ROLE, ensureRoleSql } from '@/db/roles';

/**
 * Runs once before the integration-postgres project. Selecting that project without a reachable
 * PostgreSQL server is a mistake, so it stops the run with a message instead of passing vacuously.
 * It also makes the application's database role the tests connect as.
 */
export default async function requirePostgres(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    throw new Error(
      'The integration-postgres project needs DATABASE_URL, e.g. ' +
        'DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx vitest run --project integration-postgres ' +
        '(the role must be allowed to CREATE DATABASE; each test file gets its own cs_test_* database). ' +
        'To test without a server, run --project integration-pglite.',
    );
  }
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new Error('DATABASE_URL must be a postgres:// or postgresql:// URL for the integration-postgres project.');
  }
  const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await sql`select 1`;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`The integration-postgres project cannot reach the PostgreSQL server at DATABASE_URL: ${reason}`);
  }
  try {
    // The application's role, which tests connect as to try what the application may do
    // (test/db.ts openAppRoleHandle). Roles belong to the whole server: made once, kept.
    await sql.unsafe(ensureRoleSql(APP_ROLE));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `The integration-postgres project needs a DATABASE_URL role that may create roles (${APP_ROLE}): ${reason}`,
    );
  } finally {
    await sql.end({ timeout: 5 });
  }
}
