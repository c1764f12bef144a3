/**
 * The two database roles (docs/operations.md, "The two database roles"): the owner of the schema,
 * which runs the migrations (MIGRATION_DATABASE_URL), and the application's role, which the
 * server, the worker and the CLI use (DATABASE_URL). Migration 0024 grants the application's role
 * by this name; the owner's name is the operator's choice.
 */
export const OWNER_ROLE = 'countersign_owner';
export const APP_ROLE = 'countersign_app';

/** A PostgreSQL identifier or literal, quoted. */
const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Makes a role with a login unless it exists; safe when another session makes it at the same moment. */
export function ensureRoleSql(name: string): string {
  const role = literal(name);
  return [
    'DO $$ BEGIN',
    `  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = ${role}) THEN CREATE ROLE ${ident(name)} LOGIN;`,
    `  ELSIF NOT (SELECT rolcanlogin FROM pg_roles WHERE rolname = ${role}) THEN ALTER ROLE ${ident(name)} LOGIN;`,
    '  END IF;',
    'EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;',
    'END $$;',
  ].join('\n');
}

/**
 * SQL a superuser runs once against the database (psql -v ON_ERROR_STOP=1): makes both roles if
 * missing (roles are cluster-wide) with a login, hands the database, the public schema and, on an
 * existing install, every table, sequence, type, function and the migrations' bookkeeping to the
 * owner, and lets the application's role connect. Safe to run again.
 */
export function rolesSql({ database, owner = OWNER_ROLE }: { database: string; owner?: string }): string {
  return [
    '-- Countersign: the owner (runs migrations) and the application (server, worker, CLI).',
    ensureRoleSql(owner),
    ensureRoleSql(APP_ROLE),
    `ALTER ROLE ${ident(owner)} NOSUPERUSER NOCREATEROLE NOCREATEDB NOREPLICATION NOBYPASSRLS;`,
    `ALTER ROLE ${ident(APP_ROLE)} NOSUPERUSER NOCREATEROLE NOCREATEDB NOREPLICATION NOBYPASSRLS;`,
    '-- Set each password (psql: \\password countersign_owner, \\password countersign_app) unless the server ' +
      'trusts local connections.',
    `ALTER DATABASE ${ident(database)} OWNER TO ${ident(owner)};`,
    `ALTER SCHEMA public OWNER TO ${ident(owner)};`,
    `REVOKE ALL ON DATABASE ${ident(database)} FROM PUBLIC;`,
    '-- What the owner creates later (migration 0024 says the same for whoever ran it).',
    `ALTER DEFAULT PRIVILEGES FOR ROLE ${ident(owner)} IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ` +
      `ON TABLES TO ${ident(APP_ROLE)};`,
    `ALTER DEFAULT PRIVILEGES FOR ROLE ${ident(owner)} IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES ` +
      `TO ${ident(APP_ROLE)};`,
    `ALTER DEFAULT PRIVILEGES FOR ROLE ${ident(owner)} REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;`,
    `GRANT CONNECT ON DATABASE ${ident(database)} TO ${ident(APP_ROLE)};`,
    "-- An existing install: what the old (single) role made becomes the owner's.",
    `DO $$\nDECLARE object record;\nBEGIN\n  FOR object IN\n    SELECT format('ALTER %s %s OWNER ` +
      `TO ${ident(owner).replaceAll("'", "''")}', kind, name) AS statement FROM (\n      SELECT CASE c.relkind ` +
      `WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' ELSE 'TABLE' END AS kind, c.oid::regclass::text AS name\n  ` +
      `      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace\n        WHERE n.nspname IN ` +
      `('public', 'drizzle') AND c.relkind IN ('r', 'p', 'v', 'S') AND NOT (c.relkind = 'S' AND EXISTS (SELECT ` +
      `FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))\n      UNION ALL SELECT 'FUNCTION', ` +
      `p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ` +
      `'public'\n      UNION ALL SELECT 'TYPE', t.oid::regtype::text FROM pg_type t JOIN pg_namespace n ON ` +
      `n.oid = t.typnamespace WHERE n.nspname = 'public' AND t.typtype = 'e'\n      UNION ALL SELECT 'SCHEMA', ` +
      `'drizzle' WHERE EXISTS (SELECT FROM pg_namespace WHERE nspname = 'drizzle')\n    ) AS objects\n  LOOP\n  ` +
      `  EXECUTE object.statement;\n  END LOOP;\nEND $$;`,
  ].join('\n');
}
