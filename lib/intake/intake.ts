import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { intakeAttempts, outbox, proposals, type GateResult, type Proposal } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { appendAudit } from '@/lib/audit/append';
import { ApiError } from '@/lib/http/errors';
import { newId } from '@/lib/ids';
import { payloadHash } from '@/lib/payload-hash';
import { loadPolicy, routeProposal } from '@/lib/policy/route';
import { checkShape } from './shape';

export type IntakeOutcome = { created: boolean; proposal: Proposal };

/**
 * Runs a candidate through the gates and stores it as a proposal, in one transaction with its
 * intake attempt, audit event and outbox row. Throws ApiError for every rejection.
 */
export async function submitProposal(
  db: Database,
  agent: AgentPrincipal,
  body: { text: string; value: unknown },
  now = new Date(),
): Promise<IntakeOutcome> {
  const { envelope, action, contract, args } = checkShape(body.value, agent);

  const payload = {
    action: action.name,
    contractVersion: contract.version,
    tenantId: agent.tenantId,
    args,
    evidenceRefs: envelope.evidenceRefs,
  };
  const hash = payloadHash(payload);

  const existing = await findByRequestId(db, agent.tenantId, envelope.requestId);
  if (existing) return replay(existing, hash);

  const policy = await loadPolicy(db, agent.tenantId, action);
  const routing = routeProposal(policy, args);
  if (routing.outcome === 'deny') {
    throw new ApiError(403, 'authorization', 'denied_by_policy', `Policy rule "${routing.rule}" does not allow this ${action.name}.`);
  }
  const gates: GateResult[] = [
    { gate: 'shape', ok: true, detail: `${action.name} v${contract.version}` },
    { gate: 'authority', ok: true, detail: `${agent.agentName} may ${action.name}` },
    { gate: 'routing', ok: true, detail: routing.outcome === 'auto_approve' ? 'auto-approved' : `${routing.approvals} × ${routing.role}` },
  ];

  const id = newId('prp');
  const inserted = await db.transaction(async (tx) => {
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
        status: routing.outcome === 'auto_approve' ? 'approved' : 'pending_approval',
        payload,
        payloadHash: hash,
        rawCandidate: body.text,
        gates,
        routing,
        repairOf: envelope.repairOf ?? null,
        createdAt: now,
        updatedAt: now,
        expiresAt: new Date(now.getTime() + action.defaultExpiryHours * 3_600_000),
        decidedAt: routing.outcome === 'auto_approve' ? now : null,
      })
      .onConflictDoNothing({ target: [proposals.tenantId, proposals.requestId] })
      .returning();
    if (!row) return undefined;
    await tx.insert(intakeAttempts).values({
      id: newId('att'),
      tenantId: agent.tenantId,
      agentKeyId: agent.keyId,
      requestId: envelope.requestId,
      repairOf: envelope.repairOf ?? null,
      action: action.name,
      contractVersion: contract.version,
      outcome: 'accepted',
      httpStatus: 201,
      proposalId: id,
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
  if (inserted) return { created: true, proposal: inserted };

  // Another request with this requestId committed first (we waited on its row): answer as a retry.
  const winner = await findByRequestId(db, agent.tenantId, envelope.requestId);
  if (!winner) throw new Error('proposal vanished after an idempotency conflict');
  return replay(winner, hash);
}

function replay(existing: Proposal, hash: string): IntakeOutcome {
  if (existing.payloadHash !== hash) {
    throw new ApiError(409, 'idempotency', 'idempotency_conflict', 'This requestId was already used for a different payload; use a new requestId.');
  }
  return { created: false, proposal: existing };
}

async function findByRequestId(db: Database, tenantId: string, requestId: string): Promise<Proposal | undefined> {
  const [row] = await db
    .select()
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.requestId, requestId)))
    .limit(1);
  return row;
}
