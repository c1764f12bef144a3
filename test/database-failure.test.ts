import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { type DatabaseFailureCause, explainDatabaseFailure, redactDatabaseUrl } from '@/db/connection-failure';

// db/connection-failure.ts maps what the driver threw to a cause an operator can act on. The real
// errors are produced in test/start-failures*.int.test.ts; a wrong password (28P01) needs a server
// with password authentication, which the machine's trust-auth server is not, so its shape is
// built here as postgres.js builds it.

const URL_WITH_PASSWORD = 'postgres://countersign:pa%24%24word-9f2@db.internal:6543/countersign?sslmode=require';
const PASSWORD = 'pa$$word-9f2';

/** What drizzle throws: "Failed query: …" with the driver's error as its cause. */
const failedQuery = (cause: Error) =>
  new Error('Failed query: CREATE SCHEMA IF NOT EXISTS "drizzle"\nparams: ', { cause });
const systemError = (code: string, message: string) => Object.assign(new Error(message), { code });
const serverError = (code: string, message: string) =>
  new postgres.PostgresError({ code, message, severity: 'FATAL' } as never);

describe('explainDatabaseFailure', () => {
  it.each<[string, Error, DatabaseFailureCause, string]>([
    [
      'a refused connection',
      systemError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:6543'),
      'connection_refused',
      'connection refused: nothing accepts connections at db.internal:6543',
    ],
    [
      'an unknown host',
      systemError('ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal'),
      'host_not_found',
      'host not found: "db.internal" does not resolve',
    ],
    [
      'a connect timeout',
      systemError('CONNECT_TIMEOUT', 'write CONNECT_TIMEOUT db.internal:6543'),
      'no_answer',
      'no answer from db.internal:6543 (CONNECT_TIMEOUT)',
    ],
    [
      'a wrong password',
      serverError('28P01', 'password authentication failed for user "countersign"'),
      'authentication',
      'authentication failed for user "countersign" (28P01: password authentication failed',
    ],
    [
      'an unknown role',
      serverError('28000', 'role "countersign" does not exist'),
      'authentication',
      'authentication failed for user "countersign" (28000: role "countersign" does not exist)',
    ],
    [
      'a SCRAM signature mismatch',
      systemError('SASL_SIGNATURE_MISMATCH', 'The server did not return the correct signature'),
      'authentication',
      'authentication failed for user "countersign" (SASL_SIGNATURE_MISMATCH',
    ],
    [
      'a missing database',
      serverError('3D000', 'database "countersign" does not exist'),
      'database_missing',
      'database "countersign" does not exist on db.internal:6543. Create it (createdb countersign)',
    ],
    [
      'any other server error',
      serverError('53300', 'sorry, too many clients already'),
      'other',
      'sorry, too many clients already (code 53300)',
    ],
  ])('names %s, under drizzle’s wrapper, with the URL but not its password', (_label, driverError, cause, says) => {
    const explained = explainDatabaseFailure(failedQuery(driverError), URL_WITH_PASSWORD);
    expect(explained.failure).toBe(cause);
    expect(explained.message).toContain(says);
    expect(explained.message).toContain('postgres://countersign:***@db.internal:6543/countersign?sslmode=require');
    expect(explained.message).not.toContain(PASSWORD);
    expect(explained.message).not.toContain('pa%24%24word');
    expect(explained.message).not.toContain('Failed query');
  });

  it('keeps the message of an error without a code, and removes the password even where a message repeats it', () => {
    const explained = explainDatabaseFailure(
      new Error(`could not use ${URL_WITH_PASSWORD} (${PASSWORD})`),
      URL_WITH_PASSWORD,
    );
    expect(explained.failure).toBe('other');
    expect(explained.message).not.toContain(PASSWORD);
    expect(explained.message).not.toContain('pa%24%24word');
  });
});

describe('redactDatabaseUrl', () => {
  it.each([
    ['postgres://app:secret@127.0.0.1:5432/app', 'postgres://app:***@127.0.0.1:5432/app'],
    ['postgresql://app@127.0.0.1/app', 'postgresql://app@127.0.0.1/app'],
    ['postgres://127.0.0.1/app?user=app&password=secret', 'postgres://127.0.0.1/app?user=app&password=***'],
    ['not a url secret', '(DATABASE_URL, not a parseable URL)'],
  ])('%s → %s', (url, shown) => {
    expect(redactDatabaseUrl(url)).toBe(shown);
  });
});
