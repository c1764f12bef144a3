import type { Database } from '@/db';
import { type GateResult, type NormalizedPayload, type Proposal, proposals } from '@/db/schema';
import type { ActionModule, ContractVersion } from '@/lib/actions/types';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { mintCommand } from '@/lib/commands/mint';
import { notAuthorized, Refusal } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { authorityGate } from '@/lib/gates/authority';
import { besides, lockClaims, openingClaim } from '@/lib/gates/claims';
import { meaningGate } from '@/lib/gates/meaning';
import { routingGate } from '@/lib/gates/routing';
import { rulesGate } from '@/lib/gates/rules';
import type { GateSubject, Verdict } from '@/lib/gates/types';
import { recordGrantApproval } from '@/lib/grants/approval';
import { coveringGrant, tenantMayHaveGrants } from '@/lib/grants/cover';
import { newId } from '@/lib/ids';
import { payloadHash } from '@/lib/payload-hash';
import { loadPolicy } from '@/lib/policy/routing';
import { proposalFlags, resourceUsedBefore, textFlags } from '@/lib/proposals/flags';
import type { SystemsClient } from '@/lib/systems/client';
import { SPAN } from '@/lib/telemetry/attributes';
import { withSpan } from '@/lib/telemetry/trace';

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

export function normalizedPayload(
  candidate: Pick<ShapedProposal, 'agent' | 'action' | 'contract' | 'args' | 'evidenceRefs'>,
): NormalizedPayload {
  const { agent, action, contract, args, evidenceRefs } = candidate;
  return { action: action.name, contractVersion: contract.version, tenantId: agent.tenantId, args, evidenceRefs };
}

export type AdmitHooks = {
  /**
   * Inside the transaction, before the resource's claims row: locks and answers the proposal this
   * one replaces, whose claim is then not counted (lock order: proposal rows, then the claims row).
   */
  replaces?(tx: Database): Promise<Proposal>;
  /** Inside the transaction, after the resource lock: a proposal that already answers this request. */
  existing?(tx: Database): Promise<Proposal | undefined>;
  /**
   * Inside the transaction, sent right after the proposal row and its created event (not awaiting
   * them): the caller's own rows (attempt, parent update), which may name the new proposal.
   */
  afterInsert?(tx: Database, admitted: Pick<Proposal, 'id' | 'payloadHash' | 'status'>): Promise<void>;
};

/** One gate's run as a child span of the intake, named by the gate and ended with its verdict. */
function traced<T>(id: string, subject: GateSubject, run: () => Promise<Verdict<T>>): Promise<Verdict<T>> {
  return withSpan(SPAN.gate(id), { tenantId: subject.tenantId, action: subject.action.name }, async (span) => {
    const verdict = await run();
    span.note({ outcome: verdict.ok ? 'passed' : 'refused' });
    return verdict;
  });
}

/**
 * The gate pipeline (lib/gates/, in docs/design.md §1 order): Meaning and Authority, then the rules and
 * Routing under a per-resource lock; then the proposal with its outbox row and audit event, in one
 * transaction. Returns the new proposal, or what
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

  const subject: GateSubject = { tenantId: agent.tenantId, action, args };
  const excludeId = candidate.revision?.parentId;

  // Meaning and Authority read the system of record, before any lock. Missing, another tenant's
  // and out of the key's scope are one answer; Authority runs before the rules, so an
  // out-of-scope resource reveals nothing, not even its limits.
  const meant = await traced('meaning', subject, () =>
    meaningGate(subject, { systems, evidenceRefs: candidate.evidenceRefs }),
  );
  if (!meant.ok) throw notAuthorized();
  const { resolution, evidence } = meant.value;
  if (!(await traced('authority', subject, () => authorityGate(subject, { grants: agent.grants, resolution }))).ok)
    throw notAuthorized();
  // The agent's text is read here, before the lock: linear and bounded (SCAN_BUDGET_CHARS), but
  // never time another intake on the same resource waits for (issue 35).
  const text = textFlags(args, evidence);
  const [policy, grantsMayCover] = await Promise.all([
    loadPolicy(db, agent.tenantId, action),
    tenantMayHaveGrants(db, agent.tenantId),
  ]);
  const id = newId('prp');

  return db.transaction(async (tx) => {
    const replaced = await hooks.replaces?.(tx);
    // One intake at a time per resource: its claims row, locked, is also what the open proposals
    // on it claim, so each is counted against live state exactly once. The reads under the lock are
    // sent with it, after it on the same connection (lib/gates/claims.ts): one round trip for all.
    const [claimed, found, routed, earlier] = await Promise.all([
      lockClaims(tx, agent.tenantId, resolution.resourceKey),
      hooks.existing?.(tx),
      // Under the same lock: concurrent slices of one split request each see the ones before them.
      traced('routing', subject, () =>
        routingGate(subject, { db: tx, policy, resourceKey: resolution.resourceKey, now, excludeId }),
      ),
      resourceUsedBefore(tx, agent.tenantId, resolution.resourceKey, excludeId),
    ]);
    const open = replaced ? besides(claimed, replaced) : claimed;
    const ruled = await traced('rules', subject, () => rulesGate(subject, { resolution, open }));
    if (found) return { created: false, proposal: found };
    if (!ruled.ok) throw new Refusal(ruled.refusal.code, ruled.refusal.message);
    if (!routed.ok) throw new Refusal(routed.refusal.code, routed.refusal.message);
    const { routing, priors } = routed.value;
    // What the reviewer should notice: the text flags read before the lock, near a bound and first use from what the
    // gates read under it.
    const flags = proposalFlags(subject, {
      text,
      resolution,
      policy,
      routing,
      priors,
      open: ruled.value,
      usedBefore: earlier,
    });
    const gates: GateResult[] = [
      { gate: 'shape', ok: true, detail: `${action.name} v${contract.version}` },
      { gate: 'meaning', ok: true, detail: resolution.detail },
      { gate: 'authority', ok: true, detail: `${agent.agentName} may ${action.name} here` },
      {
        gate: 'routing',
        ok: true,
        detail: routing.outcome === 'auto_approve' ? 'auto-approved' : `${routing.approvals} × ${routing.role}`,
      },
    ];
    // A standing grant may approve what would wait for one person (docs/grants.md); never an operator's revision.
    const grant =
      grantsMayCover && routing.outcome === 'needs_approval' && !candidate.revision
        ? await coveringGrant(
            tx,
            {
              tenantId: agent.tenantId,
              agentKeyId: agent.keyId,
              resourceKey: resolution.resourceKey,
              routing,
              flags,
              initiatedByUserId: null,
              action,
              args,
            },
            now,
          )
        : undefined;
    const autoApproved = routing.outcome === 'auto_approve' || grant !== undefined;
    // The new claim joins the locked row in the same statement as the proposal; its created event
    // and the caller's rows (the attempt; a revision's parent) are sent with it, after it, since
    // they name it: the writes cost one round trip, and the lock is released at commit.
    const status = autoApproved ? 'approved' : 'pending_approval';
    const inserting = tx
      .with(
        openingClaim(
          tx,
          { tenantId: agent.tenantId, resourceKey: resolution.resourceKey, action: action.name, payload },
          action,
        ),
      )
      .insert(proposals)
      .values({
        id,
        tenantId: agent.tenantId,
        requestId: candidate.requestId,
        agentKeyId: agent.keyId,
        agentName: agent.agentName,
        action: action.name,
        contractVersion: contract.version,
        status,
        payload,
        payloadHash: hash,
        rawCandidate: candidate.rawText,
        gates,
        routing,
        risk: action.risk(args),
        resourceKey: resolution.resourceKey,
        facts: resolution.facts,
        evidence,
        flags,
        parentId: candidate.revision?.parentId ?? null,
        initiatedByUserId: candidate.revision?.userId ?? null,
        revisionReason: candidate.revision?.reason ?? null,
        repairOf: candidate.repairOf,
        createdAt: now,
        updatedAt: now,
        expiresAt: new Date(now.getTime() + policy.expiryHours * 3_600_000),
        decidedAt: autoApproved ? now : null,
        grantId: grant?.id ?? null,
      })
      .returning()
      .then(([inserted]) => inserted);
    const recording = recordStateChange(tx, {
      tenantId: agent.tenantId,
      type: 'proposal.created',
      actor: candidate.revision
        ? { type: 'user', id: candidate.revision.userId }
        : { type: 'agent', id: agent.keyId, name: agent.agentName },
      proposalId: id,
      payloadHash: hash,
      reasonCode: routing.outcome,
      contractVersion: contract.version,
      data: {
        action: action.name,
        agent: agent.agentName,
        rule: routing.rule,
        policyVersion: routing.policyVersion,
        parent: candidate.revision?.parentId ?? null,
        ...(candidate.revision ? { reason: candidate.revision.reason } : {}),
        ...(routing.passkey ? { passkey: true } : {}),
      },
      occurredAt: now,
      outbox: { topic: 'proposal.created', body: { proposalId: id, status, payloadHash: hash } },
    });
    const [row] = await Promise.all([inserting, recording, hooks.afterInsert?.(tx, { id, payloadHash: hash, status })]);
    if (!row) throw new Error('proposal insert returned nothing');
    if (grant) await recordGrantApproval(tx, row, grant, now);
    // Auto-approved (or by a grant): the signed command is minted in this same transaction (docs/design.md §7).
    if (autoApproved) await mintCommand(tx, row, now);
    return { created: true, proposal: row };
  });
}
