import type { Database } from '@/db';
import { intakeAttempts } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import type { Refusal } from '@/lib/errors/refusal';
import { newId } from '@/lib/ids';
import type { ShadowVerdict } from './shape';

/** What every intake attempt records about who sent what; null where the candidate did not say. */
export type AttemptCandidate = {
  agent: AgentPrincipal | undefined;
  requestId: string | null;
  repairOf: string | null;
  rootRequestId: string | null;
  action: string | null;
  contractVersion: number | null;
  shadow?: ShadowVerdict[];
};

/** The answer a rejected agent got: status, kind, code, words, and `details.issues` (field names and codes). */
export type AttemptRefusal = Pick<Refusal, 'status' | 'kind' | 'code' | 'message' | 'details'>;

/** How the attempt ended: a proposal (new or replayed) or a rejection with the answer the agent got. */
export type AttemptResult =
  | { outcome: 'accepted' | 'replayed'; proposalId: string; createdAt: Date }
  | { outcome: 'rejected'; error: AttemptRefusal; rawCandidate: string | null; durationMs: number };

const HTTP_STATUS = { accepted: 201, replayed: 200 } as const;

/**
 * The one writer of intake_attempts rows (one INSERT, inside the caller's transaction when given
 * one). A rejection keeps reason codes and field names in the columns, never received values: those
 * stay in raw_candidate, read by tenant members only.
 */
export async function writeIntakeAttempt(
  db: Database,
  candidate: AttemptCandidate,
  result: AttemptResult,
): Promise<void> {
  const { agent, shadow } = candidate;
  const common = {
    id: newId('att'),
    tenantId: agent?.tenantId ?? null,
    agentKeyId: agent?.keyId ?? null,
    agentName: agent?.agentName ?? null,
    requestId: candidate.requestId,
    repairOf: candidate.repairOf,
    rootRequestId: candidate.rootRequestId,
    action: candidate.action,
    contractVersion: candidate.contractVersion,
    outcome: result.outcome,
    shadow: shadow && shadow.length > 0 ? shadow : null,
  };
  if (result.outcome !== 'rejected') {
    await db.insert(intakeAttempts).values({
      ...common,
      httpStatus: HTTP_STATUS[result.outcome],
      proposalId: result.proposalId,
      createdAt: result.createdAt,
    });
    return;
  }
  const { error } = result;
  const issues = Array.isArray(error.details.issues)
    ? (error.details.issues as { field: string; code: string }[]).map(({ field, code }) => ({ field, code }))
    : null;
  await db.insert(intakeAttempts).values({
    ...common,
    httpStatus: error.status,
    errorKind: error.kind,
    errorCode: error.code,
    issues,
    message: error.message,
    rawCandidate: result.rawCandidate,
    durationMs: result.durationMs,
  });
}
