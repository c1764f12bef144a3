/**
 * Why a PostgreSQL server could not be used, in words an operator can act on. The driver's own
 * error sits under drizzle's "Failed query: …" wrapper; this finds it, names the cause and shows
 * DATABASE_URL without its password. Every entry point (demo, server start, worker, CLI) gets
 * this through DatabaseHandle.migrate, its first query.
 */

export type DatabaseFailureCause =
  | 'connection_refused'
  | 'host_not_found'
  | 'no_answer'
  | 'authentication'
  | 'database_missing'
  | 'not_allowed'
  | 'other';

export class DatabaseUnavailableError extends Error {
  constructor(
    readonly failure: DatabaseFailureCause,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

type DriverError = { code: string; message: string };

/** The first error in the cause chain that carries a driver or system code (ECONNREFUSED, 3D000…). */
function driverError(error: unknown): DriverError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return { code, message: current.message };
    current = current.cause;
  }
  return undefined;
}

/** The URL as it may be shown: any password (in the user part or the query) replaced by ***. */
export function redactDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(DATABASE_URL, not a parseable URL)';
  }
  if (parsed.password) parsed.password = '***';
  for (const name of [...parsed.searchParams.keys()]) {
    if (/pass/i.test(name)) parsed.searchParams.set(name, '***');
  }
  return parsed.toString();
}

function secretsOf(url: string): string[] {
  try {
    const parsed = new URL(url);
    const query = [...parsed.searchParams].filter(([name]) => /pass/i.test(name)).map(([, value]) => value);
    return [parsed.password, decodeURIComponent(parsed.password), ...query].filter((secret) => secret.length > 0);
  } catch {
    return [url];
  }
}

const AUTHENTICATION_CODES = new Set([
  '28P01', // invalid_password
  '28000', // invalid_authorization_specification: no such role, or pg_hba.conf refuses it
  'SASL_SIGNATURE_MISMATCH',
  'AUTH_TYPE_NOT_IMPLEMENTED',
]);
const NO_ANSWER_CODES = new Set(['ETIMEDOUT', 'CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

function classify(code: string | undefined): DatabaseFailureCause {
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host_not_found';
  if (code !== undefined && NO_ANSWER_CODES.has(code)) return 'no_answer';
  if (code !== undefined && AUTHENTICATION_CODES.has(code)) return 'authentication';
  if (code === '3D000') return 'database_missing';
  if (code === '42501') return 'not_allowed';
  return 'other';
}

function explanation(
  cause: DatabaseFailureCause,
  url: URL | undefined,
  driver: DriverError | undefined,
  fallback: string,
): string {
  const address = url ? `${url.hostname}:${url.port || '5432'}` : 'the server';
  const user = url ? decodeURIComponent(url.username) || '(the default user)' : '(the user)';
  const database = url ? decodeURIComponent(url.pathname.slice(1)) || user : '(the database)';
  switch (cause) {
    case 'connection_refused':
      return (
        `connection refused: nothing accepts connections at ${address}. Start PostgreSQL there, or fix the ` +
        `host and port in DATABASE_URL.`
      );
    case 'host_not_found':
      return `host not found: "${url?.hostname ?? ''}" does not resolve. Fix the host in DATABASE_URL.`;
    case 'no_answer':
      return `no answer from ${address} (${driver?.code}). Check the host, the port and any firewall between.`;
    case 'authentication':
      return (
        `authentication failed for user "${user}" (${driver?.code}: ${driver?.message}). Check the user and ` +
        `password in DATABASE_URL.`
      );
    case 'database_missing':
      return (
        `database "${database}" does not exist on ${address}. Create it (createdb ${database}) or fix the ` +
        `database name in DATABASE_URL.`
      );
    case 'not_allowed':
      // Only migrate() reaches this: the application's role found migrations to apply and may not.
      return (
        `user "${user}" may not apply the database migrations (${driver?.message}). Apply them as the owner ` +
        `first: npm run migrate with MIGRATION_DATABASE_URL set (docs/operations.md, "The two database roles").`
      );
    case 'other':
      return `${driver?.message ?? fallback}${driver ? ` (code ${driver.code})` : ''}`;
  }
}

/** The failure of a PostgreSQL connection or query as a DatabaseUnavailableError naming its cause. */
export function explainDatabaseFailure(error: unknown, databaseUrl: string): DatabaseUnavailableError {
  if (error instanceof DatabaseUnavailableError) return error;
  const driver = driverError(error);
  const cause = classify(driver?.code);
  let url: URL | undefined;
  try {
    url = new URL(databaseUrl);
  } catch {
    url = undefined;
  }
  const message = error instanceof Error ? error.message : String(error);
  let text =
    `Countersign cannot use the database at ${redactDatabaseUrl(databaseUrl)}: ` +
    explanation(cause, url, driver, message);
  for (const secret of secretsOf(databaseUrl)) text = text.replaceAll(secret, '***');
  return new DatabaseUnavailableError(cause, text, { cause: error });
}
