import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import type { Database } from '@/db/client';
import { commands, executions, proposals, type Proposal } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { generateSigningJwk, loadCommandKeys, type SigningKey } from '@/lib/commands/keys';
import { executeCommand } from '@/lib/commands/execute';
import { mintCommand } from '@/lib/commands/mint';
import { CommandRefusal } from '@/lib/commands/verify';
import { decide } from '@/lib/decisions/decide';
import { createSystemsWriteClient, type SystemsClient, type SystemsWriteClient } from '@/lib/systems/client';
import { submitAs } from '@/lib/testing/intake';

/** Test fixtures for the background jobs: approved proposals with their minted command. */

let signing: SigningKey | undefined;

async function testSigningKey(): Promise<SigningKey> {
  signing ??= (await loadCommandKeys([await generateSigningJwk()])).signing;
  return signing;
}

export type Minted = { proposal: Proposal; commandId: string; jws: string; scope: string; idempotencyKey: string; expiresAt: Date };

/**
 * Proposes as the agent, approves as `approverId` and returns the command minted for it — by the
 * decision itself when it mints, or here, in one transaction, the way minting does it.
 */
export async function approvedCommand(
  db: Database,
  systems: SystemsClient,
  agent: AgentPrincipal,
  approverId: string,
  body: Record<string, unknown>,
  now: Date,
): Promise<Minted> {
  const { proposal } = await submitAs(db, systems, agent, body, { now });
  if (proposal.status === 'pending_approval') {
    await decide(db, systems, { userId: approverId, proposalId: proposal.id, request: { decision: 'approve', payloadHash: proposal.payloadHash } }, now);
  }
  let [command] = await db.select().from(commands).where(eq(commands.proposalId, proposal.id));
  if (!command) {
    const key = await testSigningKey();
    await db.transaction(async (tx) => {
      const [row] = await tx.select().from(proposals).where(eq(proposals.id, proposal.id)).for('update');
      if (!row) throw new Error('proposal vanished');
      await mintCommand(tx, row, now, key);
    });
    [command] = await db.select().from(commands).where(eq(commands.proposalId, proposal.id));
  }
  if (!command) throw new Error('no command was minted');
  const [fresh] = await db.select().from(proposals).where(eq(proposals.id, proposal.id));
  return { proposal: fresh!, commandId: command.id, jws: command.jws, scope: command.scope, idempotencyKey: command.idempotencyKey, expiresAt: command.expiresAt };
}

/** The scope's write client against the running demo systems of record. */
export function writeClients(baseUrl: string, credentials: Record<string, string>, timeoutMs = 1_000): (scope: string) => SystemsWriteClient {
  return (scope) => createSystemsWriteClient({ baseUrl, credential: credentials[scope] ?? 'missing_credential_x', scope, timeoutMs });
}

/**
 * The real executor (lib/commands/execute.ts) behind a fetch, as `POST /api/executor/<scope>`
 * answers: 200 with the recorded execution, or the refusal's 4xx. Records every jti it receives.
 */
export function executorFetch(db: Database, options: { systems: SystemsClient; writeClients: (scope: string) => SystemsWriteClient; clock?: () => Date; deadlineMs?: number }) {
  const received: string[] = [];
  const fetcher = (async (input: URL | RequestInfo, init?: RequestInit) => {
    const url = new URL(String(input));
    const scope = decodeURIComponent(url.pathname.replace(/^\/api\/executor\//, ''));
    if (new Headers(init?.headers).get('content-type') !== 'application/jose') return new CommandRefusal('unsupported_media_type', 'jose only', 415).toResponse();
    const jws = String(init?.body);
    try {
      received.push(String(decodeJwt(jws).jti));
    } catch {
      received.push('(undecodable)');
    }
    try {
      const execution = await executeCommand(db, { scope, jws, systems: options.systems, writeClient: options.writeClients(scope), deadlineMs: options.deadlineMs ?? 1_000, clock: options.clock });
      return Response.json({ execution });
    } catch (error) {
      if (error instanceof CommandRefusal) return error.toResponse();
      throw error;
    }
  }) as typeof fetch;
  return { received, fetcher };
}

/**
 * Runs the minted command through the real executor at `now`, with whatever fault is queued in the
 * system of record, and answers its execution (which must be `outcome_unknown`).
 */
export async function executeToUnknownOutcome(db: Database, minted: Minted, options: { systems: SystemsClient; writeClient: SystemsWriteClient }, now: Date): Promise<{ executionId: string; attempts: number; errorCode: string | null }> {
  const answer = await executeCommand(db, { scope: minted.scope, jws: minted.jws, systems: options.systems, writeClient: options.writeClient, deadlineMs: 500, clock: () => now });
  if (answer.status !== 'outcome_unknown') throw new Error(`the executor recorded ${answer.status}, not outcome_unknown`);
  const [row] = await db.select().from(executions).where(eq(executions.commandId, minted.commandId));
  if (!row) throw new Error('the executor recorded no execution');
  return { executionId: row.id, attempts: row.attempts, errorCode: row.errorCode };
}
