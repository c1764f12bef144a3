import type { Database } from '@/db';
import { intakeAttempts } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import type { ApiError } from '@/lib/http/errors';
import { newId } from '@/lib/ids';

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
}

const shortText = (value: unknown) => (typeof value === 'string' && value.length <= 128 ? value : null);

/** A rejected intake attempt, kept for metrics and audit: reason codes and field names, never values. */
export async function recordRejection(
  db: Database,
  agent: AgentPrincipal | undefined,
  body: unknown,
  error: ApiError,
  startedAt: number,
): Promise<void> {
  const issues = Array.isArray(error.extra.issues)
    ? (error.extra.issues as { field: string; code: string }[]).map(({ field: name, code }) => ({ field: name, code }))
    : null;
  const version = field(body, 'contractVersion');
  await db.insert(intakeAttempts).values({
    id: newId('att'),
    tenantId: agent?.tenantId ?? null,
    agentKeyId: agent?.keyId ?? null,
    requestId: shortText(field(body, 'requestId')),
    repairOf: shortText(field(body, 'repairOf')),
    action: shortText(field(body, 'action')),
    contractVersion: Number.isInteger(version) && Math.abs(version as number) < 2 ** 31 ? (version as number) : null,
    outcome: 'rejected',
    httpStatus: error.status,
    errorKind: error.kind,
    errorCode: error.code,
    issues,
    durationMs: Math.round(performance.now() - startedAt),
  });
}
