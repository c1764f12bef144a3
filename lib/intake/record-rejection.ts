import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { intakeAttempts } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import type { Refusal } from '@/lib/errors/domain-error';
import { recordNotice } from '@/lib/events/record';
import { newId } from '@/lib/ids';
import type { ShadowVerdict } from './shape';

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
}

const shortText = (value: unknown) => (typeof value === 'string' && value.length <= 128 ? value : null);
/** Only well-formed request ids become chain keys; anything else is kept out of those columns. */
const token = (value: unknown) => (typeof value === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : null);

/**
 * A rejected intake attempt, kept for metrics, repair chains and operators: reason codes and field
 * names in the columns, the body as received only in raw_candidate (read by tenant members).
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
  const issues = Array.isArray(error.extra.issues)
    ? (error.extra.issues as { field: string; code: string }[]).map(({ field: name, code }) => ({ field: name, code }))
    : null;
  const version = field(body?.value, 'contractVersion');
  const requestId = token(field(body?.value, 'requestId'));
  const row = {
    id: newId('att'),
    tenantId: agent?.tenantId ?? null,
    agentKeyId: agent?.keyId ?? null,
    agentName: agent?.agentName ?? null,
    requestId,
    repairOf: token(field(body?.value, 'repairOf')),
    rootRequestId: attempt.rootRequestId ?? requestId,
    action: shortText(field(body?.value, 'action')),
    contractVersion: Number.isInteger(version) && Math.abs(version as number) < 2 ** 31 ? (version as number) : null,
    outcome: 'rejected',
    httpStatus: error.status,
    errorKind: error.kind,
    errorCode: error.code,
    issues,
    message: error.message,
    rawCandidate: body?.text ?? null,
    shadow: attempt.shadow && attempt.shadow.length > 0 ? attempt.shadow : null,
    durationMs: Math.round(performance.now() - attempt.startedAt),
  };
  if (!(attempt.exhaustsChain && agent && requestId && row.rootRequestId)) {
    await db.insert(intakeAttempts).values(row);
    return;
  }
  const rootRequestId = row.rootRequestId;
  await db.transaction(async (tx) => {
    // A retry of the same last repair is rejected again; its chain ran out only once.
    const [earlier] = await tx
      .select({ id: intakeAttempts.id })
      .from(intakeAttempts)
      .where(and(eq(intakeAttempts.agentKeyId, agent.keyId), eq(intakeAttempts.requestId, requestId), eq(intakeAttempts.outcome, 'rejected')))
      .limit(1);
    await tx.insert(intakeAttempts).values(row);
    if (earlier) return;
    await recordNotice(tx, { tenantId: agent.tenantId, topic: 'intake.repair_exhausted', body: { agent: agent.agentName, agentKeyId: agent.keyId, rootRequestId, requestId } });
  });
}
