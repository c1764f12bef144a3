import { and, countDistinct, desc, eq, isNotNull, ne } from 'drizzle-orm';
import type { Database } from '@/db';
import { intakeAttempts } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { Refusal } from '@/lib/errors/refusal';
import { pass, type Verdict } from '@/lib/gates/types';

export const MAX_REPAIRS = 3;

/** Where a request stands in its repair chain: the chain's first request and repairs used before it. */
export type RepairState = { rootRequestId: string; used: number; isRepair: boolean };

export type RepairAdvice = { allowed: boolean; attemptsLeft: number; maxRepairs: number };

/** A request that is no repair starts its own chain. */
export const newChain = (requestId: string): RepairState => ({ rootRequestId: requestId, used: 0, isRepair: false });

export function repairAdvice(state: RepairState): RepairAdvice {
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
): Promise<Verdict<RepairState, Refusal>> {
  if (!repairOf) return pass(newChain(requestId));
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
    return {
      ok: false,
      refusal: new Refusal(
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
      ),
    };
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
  return pass({ rootRequestId, used, isRepair: true });
}

/**
 * A repair past the chain's limit, whatever the candidate (it is not even checked); its answer's
 * repair advice, like every 422's, is the chain's (lib/intake/intake.ts).
 */
export function repairLimit(state: RepairState): Refusal | undefined {
  const { rootRequestId, used } = state;
  if (!state.isRepair || used < MAX_REPAIRS) return undefined;
  return new Refusal(
    'repair_limit_reached',
    `The request "${rootRequestId}" was already repaired ${MAX_REPAIRS} times; an operator can see the ` +
      `chain. Start a new request only if the task really changed.`,
    { issues: [] },
  );
}
