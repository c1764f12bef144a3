import { and, countDistinct, desc, eq, isNotNull, ne } from 'drizzle-orm';
import type { Database } from '@/db';
import { intakeAttempts } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { Refusal } from '@/lib/errors/refusal';

export const MAX_REPAIRS = 3;

/** Where a request stands in its repair chain: the chain's first request and repairs used before it. */
export type RepairState = { rootRequestId: string; used: number; isRepair: boolean };

export function repairAdvice(state: RepairState) {
  const left = MAX_REPAIRS - state.used - (state.isRepair ? 1 : 0);
  return { allowed: left > 0, attemptsLeft: Math.max(left, 0), maxRepairs: MAX_REPAIRS };
}

/**
 * A repair names the rejected request of this key that it corrects; a chain allows MAX_REPAIRS
 * repairs of one original request, then refuses with repair_limit_reached.
 */
export async function repairState(
  db: Database,
  agent: AgentPrincipal,
  requestId: string,
  repairOf: string | undefined,
): Promise<RepairState> {
  if (!repairOf) return { rootRequestId: requestId, used: 0, isRepair: false };
  const [target] = await db
    .select({ requestId: intakeAttempts.requestId, rootRequestId: intakeAttempts.rootRequestId })
    .from(intakeAttempts)
    .where(
      and(
        eq(intakeAttempts.agentKeyId, agent.keyId),
        eq(intakeAttempts.requestId, repairOf),
        eq(intakeAttempts.outcome, 'rejected'),
      ),
    )
    .orderBy(desc(intakeAttempts.createdAt))
    .limit(1);
  if (!target) {
    throw new Refusal(
      'unknown_repair_target',
      `"repairOf" must name a rejected request of this key; "${repairOf}" is not one.`,
      {
        issues: [
          {
            field: 'repairOf',
            code: 'unknown_repair_target',
            expected: 'the requestId of a rejected request',
            received: 'an unknown requestId',
            message: '"repairOf" must name a request of yours that was rejected.',
          },
        ],
      },
    );
  }
  const rootRequestId = target.rootRequestId ?? repairOf;
  const [row] = await db
    .select({ used: countDistinct(intakeAttempts.requestId) })
    .from(intakeAttempts)
    .where(
      and(
        eq(intakeAttempts.agentKeyId, agent.keyId),
        eq(intakeAttempts.rootRequestId, rootRequestId),
        isNotNull(intakeAttempts.repairOf),
        // A retry of this same repair is not another repair.
        ne(intakeAttempts.requestId, requestId),
      ),
    )
    .limit(1);
  const used = Number(row?.used ?? 0);
  return { rootRequestId, used, isRepair: true };
}

/** Refuses a repair past the chain's limit, whatever the candidate (it is not even checked). */
export function assertRepairAllowed(state: RepairState): void {
  const { rootRequestId, used } = state;
  if (state.isRepair && used >= MAX_REPAIRS) {
    throw new Refusal(
      'repair_limit_reached',
      `The request "${rootRequestId}" was already repaired ${MAX_REPAIRS} times; an operator can see the ` +
        `chain. Start a new request only if the task really changed.`,
      {
        issues: [],
        repair: { allowed: false, attemptsLeft: 0, maxRepairs: MAX_REPAIRS },
      },
    );
  }
}
