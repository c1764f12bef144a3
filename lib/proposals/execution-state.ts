import 'server-only';
import { and, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import type { Database } from '@/db';
import { commands, executions } from '@/db/schema';
import { proposalEventsOfType } from '@/lib/events/trail';

/** One reconciliation check, as recorded in the evidence trail. */
export type ExecutionCheck = { at: string; attempt: number | null; outcome: string; reason: string | null };

export type ExecutionView = {
  status: string;
  attempts: number;
  receipt: unknown;
  errorCode: string | null;
  nextCheckAt: string | null;
  updatedAt: string;
  checks: ExecutionCheck[];
};

/** The signed command, for operators: its id, the compact JWS and its claims (decoded, not verified). */
export type CommandView = {
  id: string;
  scope: string;
  jws: string;
  expiresAt: string;
  consumedAt: string | null;
  claims: Record<string, unknown> | null;
};

export type ExecutionState = { execution: ExecutionView | null; command: CommandView | null };

function claimsOf(jws: string): Record<string, unknown> | null {
  try {
    return decodeJwt(jws) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The proposal's command, execution and reconciliation checks (each null until it exists). */
export async function executionStateFor(db: Database, tenantId: string, proposalId: string): Promise<ExecutionState> {
  const [command] = await db
    .select()
    .from(commands)
    .where(and(eq(commands.tenantId, tenantId), eq(commands.proposalId, proposalId)));
  if (!command) return { execution: null, command: null };
  const [execution] = await db.select().from(executions).where(eq(executions.commandId, command.id));
  const commandView: CommandView = {
    id: command.id,
    scope: command.scope,
    jws: command.jws,
    expiresAt: command.expiresAt.toISOString(),
    consumedAt: command.consumedAt?.toISOString() ?? null,
    claims: claimsOf(command.jws),
  };
  if (!execution) return { execution: null, command: commandView };
  const checks = await proposalEventsOfType(db, { tenantId, proposalId, type: 'execution.checked' });
  return {
    command: commandView,
    execution: {
      status: execution.status,
      attempts: execution.attempts,
      receipt: execution.receipt ?? null,
      errorCode: execution.errorCode,
      nextCheckAt: execution.nextCheckAt?.toISOString() ?? null,
      updatedAt: execution.updatedAt.toISOString(),
      checks: checks.map((check) => ({
        at: new Date(check.occurredAt).toISOString(),
        attempt: typeof check.data.attempt === 'number' ? check.data.attempt : null,
        outcome: check.reasonCode ?? 'unknown',
        reason: typeof check.data.reason === 'string' ? check.data.reason : null,
      })),
    },
  };
}
