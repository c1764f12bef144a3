import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { intakeAttempts, outbox, proposals, type GateResult, type Proposal } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { appendAudit } from '@/lib/audit/append';
import { ApiError, notAuthorized } from '@/lib/http/errors';
import { newId } from '@/lib/ids';
import { payloadHash } from '@/lib/payload-hash';
import { loadPolicy, routeProposal } from '@/lib/policy/route';
import { SystemsUnavailableError, type SystemsClient } from '@/lib/systems/client';
import { resolveEvidence } from './evidence';
import { recordRejection } from './record-rejection';
import { assertRepairAllowed, repairAdvice, repairState, type RepairState } from './repair';
import { checkShape, type ShadowVerdict } from './shape';

export type IntakeOutcome = { created: boolean; proposal: Proposal };
export type IntakeBody = { text: string; value: unknown };

/** Proposals that still hold a claim on their resource (e.g. on an order's refundable balance). */
const OPEN_STATUSES = ['pending_approval', 'approved', 'executing'] as const;

const unavailable = () =>
  new ApiError(503, 'unavailable', 'systems_unavailable', 'The system of record could not be reached; nothing was created. Retry later.', {}, { 'Retry-After': '5' });

function requestIdOf(value: unknown): string | undefined {
  const id = value !== null && typeof value === 'object' ? (value as Record<string, unknown>).requestId : undefined;
  return typeof id === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(id) ? id : undefined;
}

/**
 * The gates of DESIGN.md §1 — Shape, Meaning, Authority, Routing — then the proposal, stored in
 * one transaction with its intake attempt, audit event and outbox row. Every rejection is recorded
 * as an intake attempt and thrown as an ApiError; a repairable one says how many repairs are left.
 */
export async function submitProposal(db: Database, agent: AgentPrincipal, body: IntakeBody, systems: SystemsClient, now = new Date()): Promise<IntakeOutcome> {
  const startedAt = performance.now();
  let chain: RepairState | undefined;
  let shadow: ShadowVerdict[] | undefined;
  try {
    const raw = body.value as Record<string, unknown> | null;
    const requestId = requestIdOf(raw);
    const repairOf = requestIdOf({ requestId: raw?.repairOf });
    if (requestId) chain = await repairState(db, agent, requestId, repairOf);
    let shaped;
    try {
      shaped = checkShape(body.value, agent);
    } catch (error) {
      // Past the repair limit the answer is the limit, whatever else is wrong.
      if (chain) assertRepairAllowed(chain);
      throw error;
    }
    shadow = shaped.shadow;
    return await admit(db, agent, body, systems, now, shaped, chain ?? { rootRequestId: shaped.envelope.requestId, used: 0, isRepair: false });
  } catch (caught) {
    const refused = caught instanceof SystemsUnavailableError ? unavailable() : caught;
    if (!(refused instanceof ApiError)) throw refused;
    const error =
      refused.status === 422 && refused.code !== 'repair_limit_reached'
        ? refused.with({ repair: repairAdvice(chain ?? { rootRequestId: '', used: 0, isRepair: false }) })
        : refused;
    await recordRejection(db, { agent, body, error, rootRequestId: chain?.rootRequestId, shadow, startedAt });
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
): Promise<IntakeOutcome> {
  const payload = { action: action.name, contractVersion: contract.version, tenantId: agent.tenantId, args, evidenceRefs: envelope.evidenceRefs };
  const hash = payloadHash(payload);

  const existing = await findByRequestId(db, agent.keyId, envelope.requestId);
  if (existing) return replay(db, agent, chain, existing, hash, now);
  assertRepairAllowed(chain);

  // Meaning: the resource and the evidence, read from the system of record inside the tenant.
  const [resolution, evidence] = await Promise.all([
    action.resolve(systems, agent.tenantId, args),
    resolveEvidence(systems, agent.tenantId, envelope.evidenceRefs, action.scope),
  ]);
  if (!resolution) throw notAuthorized();
  // Authority (the key's grants cover the resolved resource, e.g. its warehouse) before the rules:
  // a resource outside the key's scope then reveals nothing, not even its limits.
  if (!action.authorize(agent.grants, resolution)) throw notAuthorized();
  const policy = await loadPolicy(db, agent.tenantId, action);
  const routing = routeProposal(policy, args);
  const id = newId('prp');

  const inserted = await db.transaction(async (tx) => {
    // One intake at a time per resource, so open proposals are counted against live state exactly once.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${agent.tenantId}/${resolution.resourceKey}`}, 0))`);
    // A concurrent twin of this request may have committed while we waited: it is a retry, not a new claim.
    const twin = await findByRequestId(tx, agent.keyId, envelope.requestId);
    if (twin) return twin;
    const open = await tx
      .select({ payload: proposals.payload })
      .from(proposals)
      .where(and(eq(proposals.tenantId, agent.tenantId), eq(proposals.resourceKey, resolution.resourceKey), inArray(proposals.status, [...OPEN_STATUSES])));
    const violation = action.checkRules(args, resolution, open.map((row) => ({ args: (row.payload as { args: Record<string, unknown> }).args })));
    if (violation) throw new ApiError(422, 'business_rule', violation.code, violation.message);
    if (routing.outcome === 'deny') {
      throw new ApiError(403, 'authorization', 'denied_by_policy', `Policy rule "${routing.rule}" (v${routing.policyVersion}) does not allow this ${action.name}.`);
    }
    const gates: GateResult[] = [
      { gate: 'shape', ok: true, detail: `${action.name} v${contract.version}` },
      { gate: 'meaning', ok: true, detail: resolution.detail },
      { gate: 'authority', ok: true, detail: `${agent.agentName} may ${action.name} here` },
      { gate: 'routing', ok: true, detail: routing.outcome === 'auto_approve' ? 'auto-approved' : `${routing.approvals} × ${routing.role}` },
    ];
    const autoApproved = routing.outcome === 'auto_approve';
    const [row] = await tx
      .insert(proposals)
      .values({
        id,
        tenantId: agent.tenantId,
        requestId: envelope.requestId,
        agentKeyId: agent.keyId,
        agentName: agent.agentName,
        action: action.name,
        contractVersion: contract.version,
        status: autoApproved ? 'approved' : 'pending_approval',
        payload,
        payloadHash: hash,
        rawCandidate: body.text,
        gates,
        routing,
        risk: action.risk(args),
        resourceKey: resolution.resourceKey,
        facts: resolution.facts,
        evidence,
        repairOf: envelope.repairOf ?? null,
        createdAt: now,
        updatedAt: now,
        expiresAt: new Date(now.getTime() + policy.expiryHours * 3_600_000),
        decidedAt: autoApproved ? now : null,
      })
      .onConflictDoNothing({ target: [proposals.agentKeyId, proposals.requestId] })
      .returning();
    if (!row) return undefined;
    await tx.insert(intakeAttempts).values({
      id: newId('att'),
      tenantId: agent.tenantId,
      agentKeyId: agent.keyId,
      agentName: agent.agentName,
      requestId: envelope.requestId,
      repairOf: envelope.repairOf ?? null,
      rootRequestId: chain.rootRequestId,
      action: action.name,
      contractVersion: contract.version,
      outcome: 'accepted',
      httpStatus: 201,
      proposalId: id,
      shadow: shadow.length > 0 ? shadow : null,
      createdAt: now,
    });
    await tx.insert(outbox).values({
      id: newId('obx'),
      tenantId: agent.tenantId,
      topic: 'proposal.created',
      proposalId: id,
      body: { proposalId: id, status: row.status, payloadHash: hash },
      createdAt: now,
    });
    // Last, so the tenant's chain head stays locked for as short a time as possible.
    await appendAudit(tx, {
      tenantId: agent.tenantId,
      type: 'proposal.created',
      actor: { type: 'agent', id: agent.keyId },
      proposalId: id,
      payloadHash: hash,
      reasonCode: routing.outcome,
      contractVersion: contract.version,
      data: { action: action.name, agent: agent.agentName, rule: routing.rule, policyVersion: routing.policyVersion },
      occurredAt: now,
    });
    return row;
  });
  if (inserted?.id === id) return { created: true, proposal: inserted };

  // Another request with this requestId committed first (we waited on its lock or row): a retry.
  const winner = inserted ?? (await findByRequestId(db, agent.keyId, envelope.requestId));
  if (!winner) throw new Error('proposal vanished after an idempotency conflict');
  return replay(db, agent, chain, winner, hash, now);
}

/** A retry answers with the stored proposal, unchanged, and is recorded; a different payload is a conflict. */
async function replay(db: Database, agent: AgentPrincipal, chain: RepairState, existing: Proposal, hash: string, now: Date): Promise<IntakeOutcome> {
  if (existing.payloadHash !== hash) {
    throw new ApiError(409, 'idempotency', 'idempotency_conflict', 'This requestId was already used for a different payload; use a new requestId.');
  }
  await db.insert(intakeAttempts).values({
    id: newId('att'),
    tenantId: agent.tenantId,
    agentKeyId: agent.keyId,
    agentName: agent.agentName,
    requestId: existing.requestId,
    repairOf: existing.repairOf,
    rootRequestId: chain.rootRequestId,
    action: existing.action,
    contractVersion: existing.contractVersion,
    outcome: 'replayed',
    httpStatus: 200,
    proposalId: existing.id,
    createdAt: now,
  });
  return { created: false, proposal: existing };
}

async function findByRequestId(db: Database, agentKeyId: string, requestId: string): Promise<Proposal | undefined> {
  const [row] = await db
    .select()
    .from(proposals)
    .where(and(eq(proposals.agentKeyId, agentKeyId), eq(proposals.requestId, requestId)))
    .limit(1);
  return row;
}
