import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Database } from '@/db/client';
import { intakeAttempts } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import type { Refusal } from '@/lib/errors/refusal';
import { submitProposal } from '@/lib/intake/intake';
import type { SystemsClient } from '@/lib/systems/client';
import { type ExpectedApiError, expectApiError } from './errors';
import { rowCounts } from './queries';

export type IntakeAttempt = typeof intakeAttempts.$inferSelect;

/** Submits a body as the agent sent it (its JSON text is the raw candidate unless given). */
export function submitAs(
  db: Database,
  systems: SystemsClient,
  agent: AgentPrincipal,
  body: unknown,
  options: { text?: string; now?: Date } = {},
) {
  return submitProposal(db, agent, { text: options.text ?? JSON.stringify(body), value: body }, systems, options.now);
}

async function attemptIds(db: Database): Promise<Set<string>> {
  return new Set((await db.select({ id: intakeAttempts.id }).from(intakeAttempts)).map((row) => row.id));
}

/**
 * Runs an intake that must be refused with a specific Refusal, and proves the refusal wrote no
 * proposal, decision, audit event or outbox row — and exactly one rejected intake attempt, with
 * the error's status, kind and code (and, for a chain's last repair, its one outbox notice).
 * Returns the error and that attempt. (Not for concurrent use.)
 */
export async function expectRejection(
  db: Database,
  run: () => Promise<unknown>,
  expected: ExpectedApiError,
  /** Outbox notices the refusal writes besides its attempt (a chain's last repair tells admins: 1). */
  options: { notices?: number } = {},
): Promise<{ error: Refusal; attempt: IntakeAttempt }> {
  const before = await rowCounts(db);
  const ids = await attemptIds(db);
  const error = await expectApiError(run(), expected);
  expect(await rowCounts(db), `a refused intake (${expected.code}) wrote only its intake attempt`).toEqual({
    ...before,
    intakeAttempts: before.intakeAttempts + 1,
    outbox: before.outbox + (options.notices ?? 0),
  });
  const fresh = (await db.select().from(intakeAttempts)).filter((row) => !ids.has(row.id));
  expect(fresh).toHaveLength(1);
  const attempt = fresh[0]!;
  expect(attempt).toMatchObject({
    outcome: 'rejected',
    httpStatus: error.status,
    errorKind: error.kind,
    errorCode: error.code,
    message: error.message,
    proposalId: null,
  });
  return { error, attempt };
}

/** The intake attempts of one key and requestId, in the order they were written. */
export async function attemptsOf(db: Database, agent: AgentPrincipal, requestId: string): Promise<IntakeAttempt[]> {
  const rows = await db
    .select()
    .from(intakeAttempts)
    .where(and(eq(intakeAttempts.agentKeyId, agent.keyId), eq(intakeAttempts.requestId, requestId)));
  return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
}
