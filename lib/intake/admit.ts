import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals, type GateResult, type NormalizedPayload, type Proposal } from '@/db/schema';
import type { ActionModule, ContractVersion, OpenProposal } from '@/lib/actions/types';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { mintCommand } from '@/lib/commands/mint';
import { recordStateChange } from '@/lib/events/record';
import { ApiError, notAuthorized } from '@/lib/http/errors';
import { newId } from '@/lib/ids';
import { payloadHash } from '@/lib/payload-hash';
import { priorTotals } from '@/lib/policy/aggregate';
import { aggregateNeeds, loadPolicy, routeProposal } from '@/lib/policy/route';
import type { SystemsClient } from '@/lib/systems/client';
import { resolveEvidence } from './evidence';

/** Proposals that still hold a claim on their resource (e.g. on an order's refundable balance). */
export const OPEN_STATUSES = ['pending_approval', 'approved', 'executing'] as const;

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
  revision?: { userId: string; parentId: string };
};

export function normalizedPayload(candidate: Pick<ShapedProposal, 'agent' | 'action' | 'contract' | 'args' | 'evidenceRefs'>): NormalizedPayload {
  const { agent, action, contract, args, evidenceRefs } = candidate;
  return { action: action.name, contractVersion: contract.version, tenantId: agent.tenantId, args, evidenceRefs };
}

/** The arguments of the open proposals on a resource (optionally not counting one of them). */
export async function openClaims(db: Database, tenantId: string, resourceKey: string, excludeId?: string): Promise<OpenProposal[]> {
  const rows = await db
    .select({ payload: proposals.payload })
    .from(proposals)
    .where(
      and(
        eq(proposals.tenantId, tenantId),
        eq(proposals.resourceKey, resourceKey),
        inArray(proposals.status, [...OPEN_STATUSES]),
        excludeId ? ne(proposals.id, excludeId) : undefined,
      ),
    );
  return rows.map((row) => ({ args: row.payload.args }));
}

export type AdmitHooks = {
  /** Inside the transaction, after the resource lock: a proposal that already answers this request. */
  existing?(tx: Database): Promise<Proposal | undefined>;
  /** Inside the transaction, after the proposal row: the caller's own rows (attempt, parent update). */
  afterInsert?(tx: Database, row: Proposal): Promise<void>;
};

/**
 * Meaning, Authority, the rules under a per-resource lock, and Routing; then the proposal with
 * its outbox row and audit event, in one transaction. Returns the new proposal, or what
 * `hooks.existing` found while holding the lock (created: false).
 */
export async function admitShaped(
  db: Database,
  systems: SystemsClient,
  candidate: ShapedProposal,
  now: Date,
  hooks: AdmitHooks = {},
): Promise<{ created: boolean; proposal: Proposal }> {
  const { agent, action, contract, args } = candidate;
  const payload = normalizedPayload(candidate);
  const hash = payloadHash(payload);

  // Meaning: the resource and the evidence, read from the system of record inside the tenant.
  const [resolution, evidence] = await Promise.all([
    action.resolve(systems, agent.tenantId, args),
    resolveEvidence(systems, agent.tenantId, candidate.evidenceRefs, action.scope),
  ]);
  if (!resolution) throw notAuthorized();
  // Authority (the key's grants cover the resolved resource, e.g. its warehouse) before the rules:
  // a resource outside the key's scope then reveals nothing, not even its limits.
  if (!action.authorize(agent.grants, resolution)) throw notAuthorized();
  const policy = await loadPolicy(db, agent.tenantId, action);
  const id = newId('prp');

  return db.transaction(async (tx) => {
    // One intake at a time per resource, so open proposals are counted against live state exactly once.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${agent.tenantId}/${resolution.resourceKey}`}, 0))`);
    const found = await hooks.existing?.(tx);
    if (found) return { created: false, proposal: found };
    const open = await openClaims(tx, agent.tenantId, resolution.resourceKey, candidate.revision?.parentId);
    const violation = action.checkRules(args, resolution, open);
    if (violation) throw new ApiError(422, 'business_rule', violation.code, violation.message);
    // Under the same lock: concurrent slices of one split request each see the ones before them.
    const priors = await priorTotals(
      tx,
      { tenantId: agent.tenantId, action: action.name, resourceKey: resolution.resourceKey, now, excludeId: candidate.revision?.parentId },
      aggregateNeeds(policy),
    );
    const routing = routeProposal(policy, args, priors);
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
        requestId: candidate.requestId,
        agentKeyId: agent.keyId,
        agentName: agent.agentName,
        action: action.name,
        contractVersion: contract.version,
        status: autoApproved ? 'approved' : 'pending_approval',
        payload,
        payloadHash: hash,
        rawCandidate: candidate.rawText,
        gates,
        routing,
        risk: action.risk(args),
        resourceKey: resolution.resourceKey,
        facts: resolution.facts,
        evidence,
        parentId: candidate.revision?.parentId ?? null,
        initiatedByUserId: candidate.revision?.userId ?? null,
        repairOf: candidate.repairOf,
        createdAt: now,
        updatedAt: now,
        expiresAt: new Date(now.getTime() + policy.expiryHours * 3_600_000),
        decidedAt: autoApproved ? now : null,
      })
      .returning();
    if (!row) throw new Error('proposal insert returned nothing');
    await hooks.afterInsert?.(tx, row);
    await recordStateChange(tx, {
      tenantId: agent.tenantId,
      type: 'proposal.created',
      actor: candidate.revision ? { type: 'user', id: candidate.revision.userId } : { type: 'agent', id: agent.keyId },
      proposalId: id,
      payloadHash: hash,
      reasonCode: routing.outcome,
      contractVersion: contract.version,
      data: { action: action.name, agent: agent.agentName, rule: routing.rule, policyVersion: routing.policyVersion, parent: candidate.revision?.parentId ?? null },
      occurredAt: now,
      outbox: { topic: 'proposal.created', body: { proposalId: id, status: row.status, payloadHash: hash } },
    });
    // Auto-approved: the signed command is minted in this same transaction (DESIGN.md §7).
    if (autoApproved) await mintCommand(tx, row, now);
    return { created: true, proposal: row };
  });
}
