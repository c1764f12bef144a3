import type { Database } from '@/db';
import type { Proposal } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { deprecationHeadersIn } from '@/lib/contracts/catalog';
import { tenantActions } from '@/lib/definitions/catalog';
import { Refusal } from '@/lib/errors/refusal';
import { pass, type Verdict } from '@/lib/gates/types';
import { isRequestId } from '@/lib/ids';
import { proposalByRequestId } from '@/lib/proposals/lookup';
import type { SystemsClient } from '@/lib/systems/client';
import { SPAN } from '@/lib/telemetry/attributes';
import { countProposal } from '@/lib/telemetry/metrics';
import { type SpanNote, withSpan, withSpanSync } from '@/lib/telemetry/trace';
import { CHECKS, FINISH, hashed, JUDGED, LOCKED_READS, WRITES } from './admit';
import { type Output, Pipeline, type Reached, Stop, stop } from './pipeline';
import { recordRejection } from './record-rejection';
import { refused } from './refusal';
import { newChain, type RepairState, repairAdvice, repairLimit, repairState } from './repair';
import { type ShadowVerdict, shadowVerdicts, shapeGate } from './shape';
import { writeIntakeAttempt } from './write-attempt';

export type IntakeOutcome = {
  created: boolean;
  proposal: Proposal;
  /** Deprecation/Sunset headers for the proposal's contract version, from the rollouts intake read. */
  headers: Record<string, string>;
};
export type IntakeBody = { text: string; value: unknown };

type IntakeInput = {
  db: Database;
  agent: AgentPrincipal;
  body: IntakeBody;
  systems: SystemsClient;
  now: Date;
  /** The intake's span: the action is noted on it once Shape matched it to the catalog. */
  span: SpanNote;
  startedAt: number;
};

/** A request already answered by a proposal: a retry, replayed if its payload hashes to the proposal's. */
type Replay = { replay: Proposal; hash: string };

function requestIdOf(value: unknown): string | undefined {
  const id = value !== null && typeof value === 'object' ? (value as Record<string, unknown>).requestId : undefined;
  return isRequestId(id) ? id : undefined;
}

/** What the admission's own steps inside the transaction see of an intake. */
type IntakeChecked = Output<typeof CHECKS> & {
  requestId: string;
  chain: RepairState | undefined;
  shadow: ShadowVerdict[];
};

const isVersionRefusal = (refusal: Refusal) => refusal.code === 'unsupported_contract_version';

/**
 * Intake, step by step: the repair chain, Shape, the idempotency look-up, the repair limit, then the
 * admission (lib/intake/admit.ts) with this flow's own rows: the look-up of a concurrent twin under
 * the resource lock, and the accepted attempt written with the proposal.
 */
const INTAKE = Pipeline.start<IntakeInput>()
  .step('request', ({ body }) => {
    const raw = body.value as Record<string, unknown> | null;
    return {
      sent: { requestId: requestIdOf(raw), repairOf: requestIdOf({ requestId: raw?.repairOf }) },
      rawText: body.text,
    };
  })
  .gate(
    'repair chain',
    async ({ db, agent, sent }): Promise<Verdict<RepairState | undefined, Refusal>> =>
      sent.requestId ? repairState(db, agent, sent.requestId, sent.repairOf) : pass(undefined),
    (chain) => ({ chain }),
  )
  .step('catalog', async ({ db, agent }) => ({ actions: await tenantActions(db, agent.tenantId) }))
  // Shadow versions judge every candidate of their action, also one the deciding version refuses.
  .step('shadow', ({ body, actions }) => ({ shadow: shadowVerdicts(body.value, actions) }))
  // Shape's verdict is held: a retry and the repair limit are answered before its refusal.
  .step('shape', ({ body, agent, actions, span }) => ({
    shape: withSpanSync(SPAN.gate('shape'), { tenantId: agent.tenantId }, (gate) => {
      const verdict = shapeGate(body.value, agent, actions);
      // The action is named only once Shape matched it to the catalog: never the agent's own text.
      if (verdict.ok) span.note({ action: verdict.value.action.name });
      gate.note(verdict.ok ? { action: verdict.value.action.name, outcome: 'passed' } : { outcome: 'refused' });
      return verdict;
    }),
  }))
  // Idempotency before the version gate: a retry of an accepted request is answered even after its
  // contract version was retired, or an agent told "unsupported" would submit it anew.
  .step('retry', async (c) => {
    const { shape, sent } = c;
    const requestId = shape.ok ? shape.value.envelope.requestId : sent.requestId;
    const asked = shape.ok || (requestId !== undefined && isVersionRefusal(shape.refusal));
    const earlier = asked && requestId ? await proposalByRequestId(c.db, c.agent.keyId, requestId) : undefined;
    if (!earlier) return undefined;
    const hash = shape.ok
      ? hashed({ agent: c.agent, ...shape.value, evidenceRefs: shape.value.envelope.evidenceRefs }).hash
      : retryHash(c.body.value, c.agent, c.actions, earlier);
    return stop<Replay>({ replay: earlier, hash });
  })
  // Past the repair limit the answer is the limit, whatever else is wrong.
  .step('repair limit', ({ chain }) => {
    const limit = chain && repairLimit(chain);
    return limit ? stop(limit) : undefined;
  })
  .gate(
    'shaped',
    ({ shape }) => shape,
    ({ envelope, action, contract, args }) => ({
      action,
      contract,
      args,
      evidenceRefs: envelope.evidenceRefs,
      requestId: envelope.requestId,
      repairOf: envelope.repairOf ?? null,
    }),
  )
  .step('payload', hashed)
  .then(CHECKS)
  .inTransaction(
    'transaction',
    Pipeline.start<IntakeChecked>()
      .together('locked reads', {
        ...LOCKED_READS,
        // A concurrent twin of this request may have committed while we waited: it is a retry, not a new claim.
        twin: async (c) => ({ twin: await proposalByRequestId(c.db, c.agent.keyId, c.requestId) }),
      })
      .step('twin', ({ twin, hash }) => (twin ? stop<Replay>({ replay: twin, hash }) : undefined))
      .then(JUDGED)
      .together('writes', {
        ...WRITES,
        attempt: async (c) => {
          await writeIntakeAttempt(
            c.db,
            {
              agent: c.agent,
              requestId: c.requestId,
              repairOf: c.repairOf,
              rootRequestId: c.chain?.rootRequestId ?? c.requestId,
              action: c.action.name,
              contractVersion: c.contract.version,
              shadow: c.shadow,
            },
            { outcome: 'accepted', proposalId: c.id, createdAt: c.now },
          );
          return {};
        },
      })
      .then(FINISH),
  );

type IntakeState = Reached<typeof INTAKE>;

/**
 * The gates of docs/design.md §1 — Shape, Meaning, Authority, Routing — then the proposal, stored in
 * one transaction with its intake attempt, audit event and outbox row. Every rejection is recorded
 * as an intake attempt and thrown as a Refusal (the system of record's unavailability among
 * them); a repairable one says how many repairs are left.
 */
export async function submitProposal(
  db: Database,
  agent: AgentPrincipal,
  body: IntakeBody,
  systems: SystemsClient,
  now = new Date(),
): Promise<IntakeOutcome> {
  return withSpan(SPAN.intake, { tenantId: agent.tenantId }, async (span) => {
    const context: IntakeState = { db, agent, body, systems, now, span, startedAt: performance.now() };
    try {
      const outcome = await intake(context);
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
      countProposal(result, context.shape?.ok ? context.shape.value.action.name : undefined);
      throw error;
    }
  });
}

/** Runs INTAKE; a refusal, or an error of the domain thrown on the way, is recorded and thrown as the answer. */
async function intake(context: IntakeState): Promise<IntakeOutcome> {
  let answer: Verdict<{ created: boolean; proposal: Proposal }, Refusal>;
  try {
    const ran = await INTAKE.run(context);
    if (!(ran instanceof Stop)) answer = pass({ created: true, proposal: ran.proposal });
    else if ('replay' in ran.result) answer = await replay(context, ran.result);
    else answer = { ok: false, refusal: ran.result };
  } catch (caught) {
    if (!(caught instanceof Refusal)) throw caught;
    throw await rejected(context, caught);
  }
  if (!answer.ok) throw await rejected(context, answer.refusal);
  const { proposal } = answer.value;
  return {
    ...answer.value,
    headers: deprecationHeadersIn(context.actions ?? [], proposal.action, proposal.contractVersion),
  };
}

/** Records the rejection; the answer, with repair advice when what was sent may be sent corrected. */
async function rejected(context: IntakeState, refusal: Refusal): Promise<Refusal> {
  const { chain } = context;
  // What was sent was refused (422: its shape or a rule): the agent may send it corrected, while its chain allows.
  const advice =
    refusal.category === 'invalid' || refusal.category === 'refused' ? repairAdvice(chain ?? newChain('')) : undefined;
  const error = advice ? refusal.with({ repair: advice }) : refusal;
  await recordRejection(context.db, {
    agent: context.agent,
    body: context.body,
    error,
    rootRequestId: chain?.rootRequestId,
    shadow: context.shadow,
    startedAt: context.startedAt,
    exhaustsChain: chain?.isRepair === true && refusal.code !== 'repair_limit_reached' && advice?.allowed === false,
  });
  return error;
}

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
  const shaped = shapeGate(value, agent, asAccepted);
  return shaped.ok ? hashed({ agent, ...shaped.value, evidenceRefs: shaped.value.envelope.evidenceRefs }).hash : '';
}

/** A retry answers with the stored proposal, unchanged, and is recorded; a different payload is a conflict. */
async function replay(
  context: IntakeState,
  { replay: existing, hash }: Replay,
): Promise<Verdict<{ created: boolean; proposal: Proposal }, Refusal>> {
  if (existing.payloadHash !== hash) {
    return refused(
      'idempotency_conflict',
      'This requestId was already used for a different payload; use a new requestId.',
    );
  }
  await writeIntakeAttempt(
    context.db,
    {
      agent: context.agent,
      requestId: existing.requestId,
      repairOf: existing.repairOf,
      rootRequestId: context.chain?.rootRequestId ?? null,
      action: existing.action,
      contractVersion: existing.contractVersion,
    },
    { outcome: 'replayed', proposalId: existing.id, createdAt: context.now },
  );
  return pass({ created: false, proposal: existing });
}
