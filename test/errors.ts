import { expect } from 'vitest';
import { actionDefinitions, contractRollouts, intakeAttempts, proposals } from '@/db/schema';
import { Refusal } from '@/lib/errors/refusal';

export type ExpectedApiError = { status: number; code: string; kind?: Refusal['kind'] };

/** Awaits a promise that must reject with a specific Refusal, and returns it (its status, kind and code as answered). */
export async function expectApiError(promise: Promise<unknown>, expected: ExpectedApiError): Promise<Refusal> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected Refusal ${expected.status} ${expected.code}, but nothing was thrown`).toBeDefined();
  expect(
    caught instanceof Refusal,
    `expected a Refusal ${expected.status} ${expected.code}, got ${String(caught)}`,
  ).toBe(true);
  const error = caught as Refusal;
  expect({ status: error.status, code: error.code, ...(expected.kind ? { kind: error.kind } : {}) }).toEqual({
    status: expected.status,
    code: expected.code,
    ...(expected.kind ? { kind: expected.kind } : {}),
  });
  return error;
}

/** A database stand-in that fails the test if anything touches it (for paths that must not write). */
export function untouchableDatabase<T extends object>(): T {
  return new Proxy({} as T, {
    get(_target, property) {
      if (property === 'then') return undefined;
      throw new Error(`The database was used (.${String(property)}) on a path that must not touch it.`);
    },
  });
}

/**
 * A database stand-in for paths that may only record a rejected intake attempt: the allowed uses
 * are `insert(intakeAttempts).values(row)`, whose rows are collected, and reading the tenant's
 * contract rollout and action definitions (it has none: the module defaults apply); anything else fails the test.
 */
export function rejectionRecordingDatabase<T extends object>(): { db: T; attempts: Record<string, unknown>[] } {
  const attempts: Record<string, unknown>[] = [];
  const db = new Proxy({} as T, {
    get(_target, property) {
      if (property === 'then') return undefined;
      // The tenant's action definitions (it has none).
      if (property === 'selectDistinctOn') {
        return () => ({
          from: (table: unknown) => {
            if (table !== actionDefinitions)
              throw new Error('The database was read from a table other than action_definitions.');
            return { where: () => ({ orderBy: () => Promise.resolve([]) }) };
          },
        });
      }
      if (property === 'select') {
        return () => ({
          from: (table: unknown) => {
            // A refused version still asks whether the request was accepted before (a retry); here it never was.
            if (table === proposals) return { where: () => ({ limit: () => Promise.resolve([]) }) };
            if (table !== contractRollouts)
              throw new Error(
                'The database was read (select) from a table other than contract_rollouts and proposals.',
              );
            return { where: () => Promise.resolve([]) };
          },
        });
      }
      if (property === 'insert') {
        return (table: unknown) => {
          if (table !== intakeAttempts)
            throw new Error('The database was written (insert) to a table other than intake_attempts.');
          return {
            values: (row: Record<string, unknown>) => {
              attempts.push(row);
              return Promise.resolve([]);
            },
          };
        };
      }
      throw new Error(`The database was used (.${String(property)}) on a path that may only record the rejection.`);
    },
  });
  return { db, attempts };
}
