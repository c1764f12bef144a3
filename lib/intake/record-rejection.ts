import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { intakeAttempts } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import type { Refusal } from '@/lib/errors/refusal';
import { recordNotice } from '@/lib/events/record';
import { isRequestId } from '@/lib/ids';
import type { ShadowVerdict } from './shape';
import { writeIntakeAttempt } from './write-attempt';

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

const shortText = (value: unknown) => (typeof value === 'string' && value.length <= 128 ? value : null);
/** Only well-formed request ids become chain keys; anything else is kept out of those columns. */
const token = (value: unknown) => (isRequestId(value) ? value : null);

/**
 * A rejected intake attempt, kept for metrics, repair chains and operators, with what could be read
 * from the body as received (well-formed ids and short names only).
 */
export async function recordRejection(
  db: Database,
  attempt: {
    agent: AgentPrincipal | undefined;
    body: { text: string; value: unknown } | undefined;
    error: Refusal;
    rootRequestId?: string;
    shadow?: ShadowVerdict[];
    startedAt: number;
    /** This rejection used up the chain's last repair: admins are told (once per request). */
    exhaustsChain?: boolean;
  },
): Promise<void> {
  const { agent, body, error } = attempt;
  const version = field(body?.value, 'contractVersion');
  const requestId = token(field(body?.value, 'requestId'));
  const rootRequestId = attempt.rootRequestId ?? requestId;
  const candidate = {
    agent,
    requestId,
    repairOf: token(field(body?.value, 'repairOf')),
    rootRequestId,
    action: shortText(field(body?.value, 'action')),
    contractVersion: Number.isInteger(version) && Math.abs(version as number) < 2 ** 31 ? (version as number) : null,
    shadow: attempt.shadow,
  };
  const result = {
    outcome: 'rejected' as const,
    error,
    rawCandidate: body?.text ?? null,
    durationMs: Math.round(performance.now() - attempt.startedAt),
  };
  if (!(attempt.exhaustsChain && agent && requestId && rootRequestId)) {
    await writeIntakeAttempt(db, candidate, result);
    return;
  }
  await db.transaction(async (tx) => {
    // A retry of the same last repair is rejected again; its chain ran out only once.
    const [earlier] = await tx
      .select({ id: intakeAttempts.id })
      .from(intakeAttempts)
      .where(
        and(
          eq(intakeAttempts.agentKeyId, agent.keyId),
          eq(intakeAttempts.requestId, requestId),
          eq(intakeAttempts.outcome, 'rejected'),
        ),
      )
      .limit(1);
    await writeIntakeAttempt(tx, candidate, result);
    if (earlier) return;
    await recordNotice(tx, {
      tenantId: agent.tenantId,
      topic: 'intake.repair_exhausted',
      body: { agent: agent.agentName, agentKeyId: agent.keyId, rootRequestId, requestId },
    });
  });
}
