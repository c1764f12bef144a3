import type { Database } from '@/db';
import { type GateResult, type NormalizedPayload, type Proposal, proposals, type Routing } from '@/db/schema';
import type { ActionModule, ContractVersion, OpenClaims } from '@/lib/actions/types';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { mintCommand } from '@/lib/commands/mint';
import { tenantEvidenceResolver } from '@/lib/definitions/evidence-resolver';
import { notAuthorized, Refusal } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { authorityGate } from '@/lib/gates/authority';
import { claimAmountOf, lockClaims, openingClaim } from '@/lib/gates/claims';
import { meaningGate } from '@/lib/gates/meaning';
import { routingGate } from '@/lib/gates/routing';
import { rulesGate } from '@/lib/gates/rules';
import type { GateName, GateRefusal, GateSubject, Verdict } from '@/lib/gates/types';
import { recordGrantApproval } from '@/lib/grants/approval';
import { coveringGrant, tenantMayHaveGrants } from '@/lib/grants/cover';
import { newId } from '@/lib/ids';
import { payloadHash } from '@/lib/payload-hash';
import type { PriorTotals } from '@/lib/policy/aggregate';
import { loadPolicy } from '@/lib/policy/routing';
import { proposalFlags, resourceUsedBefore, textFlags } from '@/lib/proposals/flags';
import type { SystemsClient } from '@/lib/systems/client';
import { SPAN } from '@/lib/telemetry/attributes';
import { withSpan } from '@/lib/telemetry/trace';
import { type Output, Pipeline, Stop } from './pipeline';

/** A candidate that passed Shape, about to meet Meaning, Authority and Routing. */
export type ShapedProposal = {
  agent: AgentPrincipal;
  action: ActionModule;
  contract: ContractVersion;
  args: NormalizedPayload['args'];
  evidenceRefs: NormalizedPayload['evidenceRefs'];
  /** The agent's idempotency key; null for an operator's revision. */
  requestId: string | null;
  repairOf: string | null;
  rawText: string;
  /** An operator's revision: who edited it, and the proposal it replaces (its claim is not counted). */
  revision?: { userId: string; parentId: string; reason: string };
};

function normalizedPayload(
  candidate: Pick<ShapedProposal, 'agent' | 'action' | 'contract' | 'args' | 'evidenceRefs'>,
): NormalizedPayload {
  const { agent, action, contract, args, evidenceRefs } = candidate;
  return { action: action.name, contractVersion: contract.version, tenantId: agent.tenantId, args, evidenceRefs };
}

/** A shaped candidate as admission takes it: the payload normalized and hashed once (`hashed`). */
export type AdmissionInput = ShapedProposal & {
  db: Database;
  systems: SystemsClient;
  now: Date;
  payload: NormalizedPayload;
  hash: string;
};

/** The step that normalizes and hashes the payload: the hash every later step (and a replay) compares. */
export const hashed = (candidate: Parameters<typeof normalizedPayload>[0]) => {
  const payload = normalizedPayload(candidate);
  return { payload, hash: payloadHash(payload) };
};

/** One gate's run as a child span of the intake, named by the gate and ended with its verdict. */
function traced<T>(id: GateName, subject: GateSubject, run: () => Promise<Verdict<T>>): Promise<Verdict<T>> {
  return withSpan(SPAN.gate(id), { tenantId: subject.tenantId, action: subject.action.name }, async (span) => {
    const verdict = await run();
    span.note({ outcome: verdict.ok ? 'passed' : 'refused' });
    return verdict;
  });
}

/** A gate's verdict with its refusal in the words intake answers it with. */
const worded = <T>(verdict: Verdict<T>, word: (refusal: GateRefusal) => Refusal): Verdict<T, Refusal> =>
  verdict.ok ? verdict : { ok: false, refusal: word(verdict.refusal) };

/** Missing and foreign resources, and ones out of the key's scope, get one byte-identical answer. */
const NOT_AUTHORIZED = notAuthorized();

/**
 * Before any lock: Meaning and Authority read the system of record. Missing, another tenant's and
 * out of the key's scope are one answer; Authority runs before the rules, so an out-of-scope
 * resource reveals nothing, not even its limits. The agent's text is read here too: linear and
 * bounded (SCAN_BUDGET_CHARS), but never time another intake on the same resource waits for (issue 35).
 */
export const CHECKS = Pipeline.start<AdmissionInput>()
  .step('subject', (c) => ({
    subject: {
      tenantId: c.agent.tenantId,
      action: c.action,
      args: c.args,
      contractVersion: c.contract.version,
      agent: { id: c.agent.keyId, grants: c.agent.grants },
    } as GateSubject,
  }))
  .gate(
    'meaning',
    async (c) =>
      worded(
        await traced('meaning', c.subject, async () =>
          meaningGate(c.subject, {
            systems: c.systems,
            evidenceRefs: c.evidenceRefs,
            // Read (once per process, until it changes) only when the proposal cites evidence.
            evidenceResolver:
              c.evidenceRefs.length > 0 ? await tenantEvidenceResolver(c.db, c.agent.tenantId) : undefined,
          }),
        ),
        () => NOT_AUTHORIZED,
      ),
    (meant) => meant,
  )
  .gate(
    'authority',
    async (c) =>
      worded(
        await traced('authority', c.subject, () =>
          authorityGate(c.subject, { grants: c.agent.grants, resolution: c.resolution }),
        ),
        () => NOT_AUTHORIZED,
      ),
    () => ({}),
  )
  .step('text', (c) => ({ text: textFlags(c.args, c.evidence) }))
  .together('policy', {
    policy: async (c) => ({ policy: await loadPolicy(c.db, c.agent.tenantId, c.action) }),
    grants: async (c) => ({ grantsMayCover: await tenantMayHaveGrants(c.db, c.agent.tenantId) }),
  })
  .step('id', () => ({ id: newId('prp') }));

type Checked = Output<typeof CHECKS>;

/**
 * One intake at a time per resource: its claims row, locked, is also what the open proposals on it
 * claim, so each is counted against live state exactly once. The reads under the lock are sent with
 * it, after it on the same connection (lib/gates/claims.ts): one round trip for all. Routing reads
 * under the same lock, so concurrent slices of one split request each see the ones before them; its
 * verdict is judged after the rules'.
 */
export const LOCKED_READS = {
  claims: async (c: Checked) => ({ open: await lockClaims(c.db, c.agent.tenantId, c.resolution.resourceKey) }),
  routed: async (c: Checked) => ({
    routed: await traced('routing', c.subject, () =>
      routingGate(c.subject, {
        db: c.db,
        policy: c.policy,
        resourceKey: c.resolution.resourceKey,
        now: c.now,
        excludeId: c.revision?.parentId,
      }),
    ),
  }),
  usedBefore: async (c: Checked) => ({
    usedBefore: await resourceUsedBefore(c.db, c.agent.tenantId, c.resolution.resourceKey, c.revision?.parentId),
  }),
};

type Locked = Checked & {
  open: OpenClaims;
  routed: Verdict<{ routing: Routing; priors: PriorTotals }>;
  usedBefore: boolean;
};

/** Under the lock: the rules, then Routing's verdict; what the reviewer should notice; a standing grant. */
export const JUDGED = Pipeline.start<Locked>()
  .gate(
    'rules',
    async (c) =>
      worded(
        await traced('rules', c.subject, () => rulesGate(c.subject, { resolution: c.resolution, open: c.open })),
        ({ code, message, ruleCode }) => new Refusal(code, message, {}, { ruleCode }),
      ),
    (open) => ({ open }),
  )
  .gate(
    'routing',
    (c) => worded(c.routed, ({ code, message }) => new Refusal(code, message)),
    (routed) => routed,
  )
  // The text flags read before the lock, near a bound and first use from what the gates read under it.
  .step('flags', (c) => ({
    flags: proposalFlags(c.subject, {
      text: c.text,
      resolution: c.resolution,
      policy: c.policy,
      routing: c.routing,
      priors: c.priors,
      open: c.open,
      usedBefore: c.usedBefore,
    }),
  }))
  // A standing grant may approve what would wait for one person (docs/grants.md); never an operator's revision.
  .step('grant', async (c) => {
    const grant =
      c.grantsMayCover && c.routing.outcome === 'needs_approval' && !c.revision
        ? await coveringGrant(
            c.db,
            {
              tenantId: c.agent.tenantId,
              agentKeyId: c.agent.keyId,
              resourceKey: c.resolution.resourceKey,
              routing: c.routing,
              flags: c.flags,
              initiatedByUserId: null,
              action: c.action,
              args: c.args,
            },
            c.now,
          )
        : undefined;
    const autoApproved = c.routing.outcome === 'auto_approve' || grant !== undefined;
    return { grant, autoApproved, status: autoApproved ? ('approved' as const) : ('pending_approval' as const) };
  });

type Judged = Output<typeof JUDGED>;

function gateResults(c: Judged): GateResult[] {
  const { action, contract, agent, resolution, routing } = c;
  return [
    { gate: 'shape', ok: true, detail: `${action.name} v${contract.version}` },
    { gate: 'meaning', ok: true, detail: resolution.detail },
    { gate: 'authority', ok: true, detail: `${agent.agentName} may ${action.name} here` },
    {
      gate: 'routing',
      ok: true,
      detail: routing.outcome === 'auto_approve' ? 'auto-approved' : `${routing.approvals} × ${routing.role}`,
    },
  ];
}

/**
 * The new claim joins the locked row in the same statement as the proposal; its created event and
 * the flow's own rows (the attempt; a revision's parent) are sent with it, after it, since they name
 * it: the writes cost one round trip, and the lock is released at commit.
 */
export const WRITES = {
  proposal: async (c: Judged) => {
    const { agent, action, contract, args, resolution, routing, now, revision } = c;
    // `.then` sends the insert now, before the rows sent beside it that name the proposal.
    const row = await c.db
      .with(
        openingClaim(
          c.db,
          { tenantId: agent.tenantId, resourceKey: resolution.resourceKey, action: action.name, payload: c.payload },
          action,
        ),
      )
      .insert(proposals)
      .values({
        id: c.id,
        tenantId: agent.tenantId,
        requestId: c.requestId,
        agentKeyId: agent.keyId,
        agentName: agent.agentName,
        action: action.name,
        contractVersion: contract.version,
        status: c.status,
        payload: c.payload,
        payloadHash: c.hash,
        rawCandidate: c.rawText,
        gates: gateResults(c),
        routing,
        risk: action.risk(args),
        resourceKey: resolution.resourceKey,
        claimAmount: claimAmountOf(action, args),
        definitionVersion: action.definitionVersion ?? null,
        facts: resolution.facts,
        evidence: c.evidence,
        flags: c.flags,
        parentId: revision?.parentId ?? null,
        initiatedByUserId: revision?.userId ?? null,
        revisionReason: revision?.reason ?? null,
        repairOf: c.repairOf,
        createdAt: now,
        updatedAt: now,
        expiresAt: new Date(now.getTime() + c.policy.expiryHours * 3_600_000),
        decidedAt: c.autoApproved ? now : null,
        grantId: c.grant?.id ?? null,
      })
      .returning()
      .then(([inserted]) => inserted);
    if (!row) throw new Error('proposal insert returned nothing');
    return { proposal: row };
  },
  created: async (c: Judged) => {
    const { agent, action, contract, routing, revision } = c;
    await recordStateChange(c.db, {
      tenantId: agent.tenantId,
      type: 'proposal.created',
      actor: revision
        ? { type: 'user', id: revision.userId }
        : { type: 'agent', id: agent.keyId, name: agent.agentName },
      proposalId: c.id,
      payloadHash: c.hash,
      reasonCode: routing.outcome,
      contractVersion: contract.version,
      data: {
        action: action.name,
        agent: agent.agentName,
        rule: routing.rule,
        policyVersion: routing.policyVersion,
        parent: revision?.parentId ?? null,
        ...(revision ? { reason: revision.reason } : {}),
        ...(routing.passkey ? { passkey: true } : {}),
        // The version of the tenant's definition it was gated by: an evidence bundle proves which.
        ...(action.definitionVersion === undefined ? {} : { definition: action.definitionVersion }),
      },
      occurredAt: c.now,
      outbox: { topic: 'proposal.created', body: { proposalId: c.id, status: c.status, payloadHash: c.hash } },
    });
    return {};
  },
};

/** After the writes: the grant's approval, and for an approved proposal its signed command (docs/design.md §7). */
export const FINISH = Pipeline.start<Judged & { proposal: Proposal }>()
  .step('grant approval', async (c) => {
    if (c.grant) await recordGrantApproval(c.db, c.proposal, c.grant, c.now);
    return undefined;
  })
  .step('mint', async (c) => {
    if (c.autoApproved) await mintCommand(c.db, c.proposal, c.now);
    return undefined;
  });

/**
 * The admission of docs/design.md §1 after Shape, for a flow with no rows of its own: the checks,
 * then in one transaction the reads under the resource lock, the verdicts, and the writes. Intake
 * (lib/intake/intake.ts) and an operator's revision (lib/decisions/revise.ts) add their own steps.
 */
export const ADMISSION = Pipeline.start<AdmissionInput>()
  .then(CHECKS)
  .inTransaction(
    'transaction',
    Pipeline.start<Checked>()
      .together('locked reads', LOCKED_READS)
      .then(JUDGED)
      .together('writes', WRITES)
      .then(FINISH),
  );

/** Runs ADMISSION on a shaped candidate: the new proposal, or the refusal thrown as the answer. */
export async function admitShaped(
  db: Database,
  systems: SystemsClient,
  candidate: ShapedProposal,
  now: Date,
): Promise<{ created: boolean; proposal: Proposal }> {
  const ran = await ADMISSION.run({ ...candidate, db, systems, now, ...hashed(candidate) });
  if (ran instanceof Stop) throw ran.result;
  return { created: true, proposal: ran.proposal };
}
