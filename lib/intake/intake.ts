import type { Database } from '@/db';
import type { Proposal } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { deprecationHeadersIn, tenantActions } from '@/lib/contracts/catalog';
import { Refusal } from '@/lib/errors/refusal';
import { isRequestId } from '@/lib/ids';
import { payloadHash } from '@/lib/payload-hash';
import { proposalByRequestId } from '@/lib/proposals/lookup';
import type { SystemsClient } from '@/lib/systems/client';
import { SPAN } from '@/lib/telemetry/attributes';
import { countProposal } from '@/lib/telemetry/metrics';
import { withSpan, withSpanSync } from '@/lib/telemetry/trace';
import { admitShaped, normalizedPayload } from './admit';
import { recordRejection } from './record-rejection';
import { assertRepairAllowed, type RepairState, repairAdvice, repairState } from './repair';
import { checkShape, type ShadowVerdict, shadowVerdicts } from './shape';
import { writeIntakeAttempt } from './write-attempt';

export type IntakeOutcome = {
  created: boolean;
  proposal: Proposal;
  /** Deprecation/Sunset headers for the proposal's contract version, from the rollouts intake read. */
  headers: Record<string, string>;
};
type Admitted = Omit<IntakeOutcome, 'headers'>;
export type IntakeBody = { text: string; value: unknown };

function requestIdOf(value: unknown): string | undefined {
  const id = value !== null && typeof value === 'object' ? (value as Record<string, unknown>).requestId : undefined;
  return isRequestId(id) ? id : undefined;
}

/**
 * The gates of docs/design.md §1 — Shape, Meaning, Authority, Routing — then the proposal, stored in
 * one transaction with its intake attempt, audit event and outbox row. Every rejection is recorded
 * as an intake attempt and thrown as a Refusal (the system of record's unavailability among them); a repairable one
 * says how many repairs are left.
 */
export async function submitProposal(
  db: Database,
  agent: AgentPrincipal,
  body: IntakeBody,
  systems: SystemsClient,
  now = new Date(),
): Promise<IntakeOutcome> {
  return withSpan(SPAN.intake, { tenantId: agent.tenantId }, async (span) => {
    // The action is named only once Shape matched it to the catalog: never the agent's own text.
    let action: string | undefined;
    try {
      const outcome = await intake(db, agent, body, systems, now, (name) => {
        action = name;
        span.note({ action: name });
      });
      const result = !outcome.created
        ? 'replayed'
        : outcome.proposal.status === 'approved'
          ? 'auto_approved'
          : outcome.proposal.status;
      span.note({ proposalId: outcome.proposal.id, action: outcome.proposal.action, outcome: result });
      countProposal(result, outcome.proposal.action);
      return outcome;
    } catch (error) {
      const result = error instanceof Refusal ? error.category : 'error';
      span.note({ outcome: result });
      countProposal(result, action);
      throw error;
    }
  });
}

async function intake(
  db: Database,
  agent: AgentPrincipal,
  body: IntakeBody,
  systems: SystemsClient,
  now: Date,
  named: (action: string) => void,
): Promise<IntakeOutcome> {
  const startedAt = performance.now();
  let chain: RepairState | undefined;
  let shadow: ShadowVerdict[] | undefined;
  try {
    const raw = body.value as Record<string, unknown> | null;
    const requestId = requestIdOf(raw);
    const repairOf = requestIdOf({ requestId: raw?.repairOf });
    if (requestId) chain = await repairState(db, agent, requestId, repairOf);
    const actions = await tenantActions(db, agent.tenantId);
    // Shadow versions judge every candidate of their action, also one the deciding version refuses.
    shadow = shadowVerdicts(body.value, actions);
    let shaped;
    try {
      shaped = withSpanSync(SPAN.gate('shape'), { tenantId: agent.tenantId }, (gate) => {
        try {
          const checked = checkShape(body.value, agent, actions);
          gate.note({ action: checked.action.name, outcome: 'passed' });
          return checked;
        } catch (error) {
          gate.note({ outcome: 'refused' });
          throw error;
        }
      });
      named(shaped.action.name);
    } catch (error) {
      // Idempotency before the version gate: a retry of an accepted request is answered even after
      // its contract version was retired, or an agent told "unsupported" would submit it anew.
      const existing =
        requestId && isVersionRefusal(error) ? await proposalByRequestId(db, agent.keyId, requestId) : undefined;
      if (existing) {
        const { proposal } = await replay(
          db,
          agent,
          chain!,
          existing,
          retryHash(body.value, agent, actions, existing),
          now,
        );
        return {
          created: false,
          proposal,
          headers: deprecationHeadersIn(actions, proposal.action, proposal.contractVersion),
        };
      }
      // Past the repair limit the answer is the limit, whatever else is wrong.
      if (chain) assertRepairAllowed(chain);
      throw error;
    }
    const { created, proposal } = await admit(
      db,
      agent,
      body,
      systems,
      now,
      shaped,
      chain ?? { rootRequestId: shaped.envelope.requestId, used: 0, isRepair: false },
    );
    return { created, proposal, headers: deprecationHeadersIn(actions, proposal.action, proposal.contractVersion) };
  } catch (caught) {
    if (!(caught instanceof Refusal)) throw caught;
    const refused = caught;
    // What was sent was refused (422: its shape or a rule): the agent may send it corrected.
    const repairable =
      (refused.category === 'invalid' || refused.category === 'refused') && refused.code !== 'repair_limit_reached';
    const error = repairable
      ? refused.with({ repair: repairAdvice(chain ?? { rootRequestId: '', used: 0, isRepair: false }) })
      : refused;
    const exhaustsChain =
      chain?.isRepair === true &&
      refused.code !== 'repair_limit_reached' &&
      (error.details.repair as { allowed?: boolean } | undefined)?.allowed === false;
    await recordRejection(db, {
      agent,
      body,
      error,
      rootRequestId: chain?.rootRequestId,
      shadow,
      startedAt,
      exhaustsChain,
    });
    throw error;
  }
}

async function admit(
  db: Database,
  agent: AgentPrincipal,
  body: IntakeBody,
  systems: SystemsClient,
  now: Date,
  { envelope, action, contract, args, shadow }: ReturnType<typeof checkShape>,
  chain: RepairState,
): Promise<Admitted> {
  const candidate = {
    agent,
    action,
    contract,
    args,
    evidenceRefs: envelope.evidenceRefs,
    requestId: envelope.requestId,
    repairOf: envelope.repairOf ?? null,
    rawText: body.text,
  };
  const hash = payloadHash(normalizedPayload(candidate));

  const existing = await proposalByRequestId(db, agent.keyId, envelope.requestId);
  if (existing) return replay(db, agent, chain, existing, hash, now);
  assertRepairAllowed(chain);

  const outcome = await admitShaped(db, systems, candidate, now, {
    // A concurrent twin of this request may have committed while we waited: it is a retry, not a new claim.
    existing: (tx) => proposalByRequestId(tx, agent.keyId, envelope.requestId),
    afterInsert: async (tx, inserted) => {
      await writeIntakeAttempt(
        tx,
        {
          agent,
          requestId: envelope.requestId,
          repairOf: envelope.repairOf ?? null,
          rootRequestId: chain.rootRequestId,
          action: action.name,
          contractVersion: contract.version,
          shadow,
        },
        { outcome: 'accepted', proposalId: inserted.id, createdAt: now },
      );
    },
  });
  return outcome.created ? outcome : replay(db, agent, chain, outcome.proposal, hash, now);
}

const isVersionRefusal = (error: unknown) => error instanceof Refusal && error.code === 'unsupported_contract_version';

/**
 * The hash of a retry's payload under the contract version its request was accepted with, the
 * version gate aside (that version may have been retired since); empty when the retry does not
 * even take that shape, so it can only conflict.
 */
function retryHash(
  value: unknown,
  agent: AgentPrincipal,
  actions: readonly ActionModule[],
  accepted: Proposal,
): string {
  const asAccepted = actions.map((action) =>
    action.name !== accepted.action
      ? action
      : {
          ...action,
          contracts: action.contracts.map((contract) =>
            contract.version === accepted.contractVersion ? { ...contract, status: 'supported' as const } : contract,
          ),
        },
  );
  try {
    const { action, contract, args, envelope } = checkShape(value, agent, asAccepted);
    return payloadHash(normalizedPayload({ agent, action, contract, args, evidenceRefs: envelope.evidenceRefs }));
  } catch {
    return '';
  }
}

/** A retry answers with the stored proposal, unchanged, and is recorded; a different payload is a conflict. */
async function replay(
  db: Database,
  agent: AgentPrincipal,
  chain: RepairState,
  existing: Proposal,
  hash: string,
  now: Date,
): Promise<Admitted> {
  if (existing.payloadHash !== hash) {
    throw new Refusal(
      'idempotency_conflict',
      'This requestId was already used for a different payload; use a new requestId.',
    );
  }
  await writeIntakeAttempt(
    db,
    {
      agent,
      requestId: existing.requestId,
      repairOf: existing.repairOf,
      rootRequestId: chain.rootRequestId,
      action: existing.action,
      contractVersion: existing.contractVersion,
    },
    { outcome: 'replayed', proposalId: existing.id, createdAt: now },
  );
  return { created: false, proposal: existing };
}
