/**
 * Grows a tenant's history for the pages bench (issue 14) with COPY: proposals cloned from one
 * real proposal the intake made (its gates, routing, facts and evidence), with a realistic mix of
 * outcomes, the decisions, commands and executions behind them, and their audit events.
 *
 * The events continue the tenant's real hash chain (hashed here with the product's own
 * `auditHashInput` + `payloadHash`, the head locked for the whole step): the worker's audit watch
 * keeps verifying the chain 2,000 events a minute as it does in production, and History shows
 * "verified", not a broken-chain banner, so the measured pages cost what they cost in real use.
 */
import { randomBytes } from 'node:crypto';
import type postgres from 'postgres';
import type { EvidenceSnapshot, NormalizedPayload, ProposalStatus } from '@/db/schema';
import { scaledIds } from '@/demo/systems/world';
import { auditHashInput } from '@/lib/events/append';
import { EXPIRY_ACTOR, expiryReason, RECHECK_ACTOR } from '@/lib/decisions/transitions';
import type { AuditEventType } from '@/lib/events/registry';
import { newId } from '@/lib/ids';
import { payloadHash } from '@/lib/payload-hash';
import { copyInto, copyLine } from './copy-text';

/** The real proposal every seeded one is cloned from, and who decides in the tenant. */
export type SeedTemplate = {
  tenantId: string;
  agentKeyId: string;
  agentName: string;
  action: string;
  contractVersion: number;
  payload: NormalizedPayload;
  rawCandidate: Record<string, unknown>;
  gates: string;
  routing: { rule: string; policyVersion: number; outcome: string; approvals: number; role: string };
  routingText: string;
  risk: string;
  facts: string;
  evidence: EvidenceSnapshot[];
  flags: string;
  /** Users of the tenant who may approve (the seeded decisions are theirs). */
  deciders: string[];
};

export async function readTemplate(sql: postgres.Sql, proposalId: string): Promise<SeedTemplate> {
  const [row] = await sql<
    {
      tenant_id: string;
      agent_key_id: string;
      agent_name: string;
      action: string;
      contract_version: number;
      payload: NormalizedPayload;
      raw_candidate: string;
      gates: string;
      routing: SeedTemplate['routing'];
      routing_text: string;
      risk: string;
      facts: string;
      evidence: EvidenceSnapshot[];
      flags: string;
    }[]
  >`select tenant_id, agent_key_id, agent_name, action, contract_version, payload, raw_candidate, gates::text as gates, routing,
      routing::text as routing_text, risk, facts::text as facts, evidence, flags::text as flags
    from proposals where id = ${proposalId}`;
  if (!row) throw new Error('the template proposal is missing');
  const deciders = await sql<{ user_id: string }[]>`
    select user_id from memberships where tenant_id = ${row.tenant_id} and role in ('approver', 'admin') order by user_id`;
  if (deciders.length === 0) throw new Error('the tenant has nobody who decides');
  return {
    tenantId: row.tenant_id,
    agentKeyId: row.agent_key_id,
    agentName: row.agent_name,
    action: row.action,
    contractVersion: row.contract_version,
    payload: row.payload,
    rawCandidate: JSON.parse(row.raw_candidate) as Record<string, unknown>,
    gates: row.gates,
    routing: row.routing,
    routingText: row.routing_text,
    risk: row.risk,
    facts: row.facts,
    evidence: row.evidence,
    flags: row.flags,
    deciders: deciders.map((d) => d.user_id),
  };
}

/** Of every 100 ended proposals: 55 succeeded, 15 rejected, 15 expired, 7 stale, 8 failed. */
function endedStatus(k: number): ProposalStatus {
  const slot = k % 100;
  if (slot < 55) return 'succeeded';
  if (slot < 70) return 'rejected';
  if (slot < 85) return 'expired';
  if (slot < 92) return 'stale';
  return 'failed';
}

const PROPOSAL_COLUMNS = [
  'id', 'tenant_id', 'request_id', 'agent_key_id', 'agent_name', 'action', 'contract_version', 'status', 'payload', 'payload_hash',
  'raw_candidate', 'gates', 'routing', 'risk', 'resource_key', 'facts', 'evidence', 'flags', 'status_reason', 'created_at',
  'expires_at', 'decided_at', 'escalated_at', 'updated_at',
] as const;
const DECISION_COLUMNS = ['id', 'tenant_id', 'proposal_id', 'user_id', 'decision', 'payload_hash', 'reason', 'created_at'] as const;
const COMMAND_COLUMNS = ['id', 'tenant_id', 'proposal_id', 'scope', 'kid', 'jws', 'idempotency_key', 'expires_at', 'consumed_at', 'created_at'] as const;
const EXECUTION_COLUMNS = ['id', 'tenant_id', 'proposal_id', 'command_id', 'status', 'attempts', 'receipt', 'error_code', 'created_at', 'updated_at'] as const;
const EVENT_COLUMNS = [
  'tenant_id', 'seq', 'type', 'actor_type', 'actor_id', 'proposal_id', 'payload_hash', 'reason_code', 'contract_version', 'data',
  'occurred_at', 'prev_hash', 'hash',
] as const;

/** Proposals per COPY batch: bounds the memory of one step whatever its size. */
const BATCH = 20_000;
/** Seeded history goes back from here, one proposal every 30 s (1,000,000 span about a year). */
const SPACING_MS = 30_000;

type Event = {
  type: AuditEventType;
  actor: { type: 'user' | 'agent' | 'system'; id: string };
  proposalId: string;
  payloadHash: string;
  reasonCode: string;
  data: Record<string, string | number | boolean | null>;
  at: Date;
};

export type GrowthStep = { proposals: number; pending: number; events: number; seconds: number };

/**
 * Adds proposals to the template's tenant until it has `target` of them (counting those already
 * there), `pending` of the added ones still waiting (the newest, created within the last hour),
 * the rest ended over the past, older than anything already seeded. One transaction, holding the
 * tenant's audit head: concurrent appends (the worker) wait and then continue the seeded chain.
 */
export async function growHistory(
  sql: postgres.Sql,
  template: SeedTemplate,
  options: { target: number; pending: number; scale: number; now?: Date },
): Promise<GrowthStep> {
  const began = Date.now();
  const now = options.now ?? new Date();
  const run = randomBytes(3).toString('hex');
  const { tenantId } = template;
  return sql.begin(async (tx) => {
    const [head] = await tx<{ seq: string; hash: string }[]>`select seq::text, hash from audit_heads where tenant_id = ${tenantId} for update`;
    if (!head) throw new Error('the tenant has no audit head yet');
    const [counted] = await tx<{ total: number; seeded: number }[]>`
      select count(*)::int as total, count(*) filter (where request_id like 'seed-%')::int as seeded from proposals where tenant_id = ${tenantId}`;
    const add = Math.max(0, options.target - (counted?.total ?? 0));
    let seq = Number(head.seq);
    let prevHash = head.hash;
    let events = 0;
    // Seeded proposals are numbered across steps so each step's history is older than the last.
    const first = counted?.seeded ?? 0;
    for (let start = 0; start < add; start += BATCH) {
      const sink: Sink = { decisions: [], commands: [], executions: [], trail: [] };
      // Lazy: rows are made (and hashed) while PostgreSQL takes the previous chunk, on the other core.
      function* proposals() {
        for (let i = start; i < Math.min(add, start + BATCH); i++) {
          yield seedOne(template, { k: first + i, pending: i < options.pending, now, run, scale: options.scale }, sink);
        }
      }
      await copyInto(tx, 'proposals', PROPOSAL_COLUMNS, proposals());
      await copyInto(tx, 'decisions', DECISION_COLUMNS, sink.decisions);
      await copyInto(tx, 'commands', COMMAND_COLUMNS, sink.commands);
      await copyInto(tx, 'executions', EXECUTION_COLUMNS, sink.executions);
      let count = 0;
      function* lines() {
        for (const event of sink.trail) {
          seq += 1;
          const row = {
            tenantId,
            seq,
            type: event.type,
            actorType: event.actor.type,
            actorId: event.actor.id,
            proposalId: event.proposalId,
            payloadHash: event.payloadHash,
            reasonCode: event.reasonCode,
            contractVersion: template.contractVersion,
            data: event.data,
            occurredAt: event.at.toISOString(),
            prevHash,
          };
          const hash = payloadHash(auditHashInput(row));
          prevHash = hash;
          count += 1;
          yield copyLine([tenantId, seq, row.type, row.actorType, row.actorId, row.proposalId, row.payloadHash, row.reasonCode, row.contractVersion, JSON.stringify(row.data), row.occurredAt, row.prevHash, hash]);
        }
      }
      await copyInto(tx, 'audit_events', EVENT_COLUMNS, lines());
      events += count;
    }
    await tx`update audit_heads set seq = ${seq}, hash = ${prevHash} where tenant_id = ${tenantId}`;
    // The seeded proposals bypassed the transitions: the tenant's claims rows start again from the sum from scratch (lib/gates/claims.ts).
    await tx`delete from resource_claims where tenant_id = ${tenantId}`;
    return { proposals: add, pending: Math.min(add, options.pending), events, seconds: Math.round((Date.now() - began) / 100) / 10 };
  });
}

type Sink = { decisions: string[]; commands: string[]; executions: string[]; trail: Event[] };

/** One seeded proposal `k` as a COPY line; what its outcome left behind (decision, command, execution, events) goes to `sink`. */
function seedOne(template: SeedTemplate, at: { k: number; pending: boolean; now: Date; run: string; scale: number }, sink: Sink): string {
  const { k, pending, now } = at;
  const ids = scaledIds((k % at.scale) + 1);
  const id = newId('prp');
  const payload: NormalizedPayload = {
    ...template.payload,
    args: { ...template.payload.args, ...('sku' in template.payload.args ? { sku: ids.sku } : {}), ...('orderId' in template.payload.args ? { orderId: ids.order } : {}) },
    evidenceRefs: [ids.evidence],
  };
  const hash = payloadHash(payload);
  const requestId = `seed-${at.run}-${k}`;
  const raw = JSON.stringify({ ...template.rawCandidate, requestId, args: payload.args, evidenceRefs: payload.evidenceRefs });
  const resourceKey = 'sku' in payload.args ? `sku:${ids.sku}` : `order:${ids.order}`;
  const evidence = JSON.stringify(template.evidence.map((item) => ({ ...item, id: ids.evidence, text: `Customer asked about order ${ids.order}.` })));
  // Pending: the newest, within the last hour, expiring in a week (no expiry or reminder during the
  // bench) and marked escalated so the worker does not notify about a thousand seeded proposals.
  const createdAt = pending ? new Date(now.getTime() - 60_000 - (k % 3_600) * 1_000) : new Date(now.getTime() - 3_600_000 - (k + 1) * SPACING_MS);
  const expiresAt = pending ? new Date(now.getTime() + 7 * 86_400_000) : new Date(createdAt.getTime() + 86_400_000);
  const status: ProposalStatus = pending ? 'pending_approval' : endedStatus(k);
  const decidedAt = pending ? null : status === 'expired' ? expiresAt : new Date(createdAt.getTime() + 60_000 + (k % 120) * 60_000);
  const decider = template.deciders[k % template.deciders.length]!;
  const reason =
    status === 'rejected' ? 'Not needed: the customer cancelled.' : status === 'expired' ? expiryReason({ expiresAt }) : status === 'stale' ? 'The stock changed before anyone decided.' : null;
  const line = copyLine([
    id, template.tenantId, requestId, template.agentKeyId, template.agentName, template.action, template.contractVersion, status, JSON.stringify(payload), hash,
    raw, template.gates, template.routingText, template.risk, resourceKey, template.facts, evidence, template.flags, reason, createdAt.toISOString(),
    expiresAt.toISOString(), decidedAt?.toISOString() ?? null, pending ? now.toISOString() : null, (decidedAt ?? now).toISOString(),
  ]);
  const routing = template.routing;
  sink.trail.push({
    type: 'proposal.created',
    actor: { type: 'agent', id: template.agentKeyId },
    proposalId: id,
    payloadHash: hash,
    reasonCode: routing.outcome,
    data: { action: template.action, agent: template.agentName, rule: routing.rule, policyVersion: routing.policyVersion, parent: null },
    at: createdAt,
  });
  if (!decidedAt) return line;
  if (status === 'succeeded' || status === 'failed' || status === 'rejected') {
    const decision = status === 'rejected' ? 'reject' : 'approve';
    sink.decisions.push(copyLine([newId('dec'), template.tenantId, id, decider, decision, hash, reason, decidedAt.toISOString()]));
    sink.trail.push({
      type: decision === 'reject' ? 'proposal.rejected' : 'proposal.approved',
      actor: { type: 'user', id: decider },
      proposalId: id,
      payloadHash: hash,
      reasonCode: decision,
      data: { approvals: decision === 'approve' ? 1 : 0, required: routing.approvals },
      at: decidedAt,
    });
  }
  if (status === 'succeeded' || status === 'failed') {
    const commandId = newId('cmd');
    const ranAt = new Date(decidedAt.getTime() + 2_000);
    // Never dispatched: consumed, with a placeholder in place of a signed JWS (nothing verifies a consumed command).
    sink.commands.push(
      copyLine([commandId, template.tenantId, id, 'inventory', 'seeded', 'seeded.not.signed', newId('idem'), new Date(decidedAt.getTime() + 300_000).toISOString(), ranAt.toISOString(), decidedAt.toISOString()]),
    );
    const receipt = status === 'succeeded' ? JSON.stringify({ id: `hold_seed_${k}` }) : null;
    sink.executions.push(copyLine([newId('exe'), template.tenantId, id, commandId, status, 1, receipt, status === 'failed' ? 'insufficient_stock' : null, ranAt.toISOString(), ranAt.toISOString()]));
    sink.trail.push({
      type: status === 'succeeded' ? 'execution.succeeded' : 'execution.failed',
      actor: { type: 'system', id: 'executor' },
      proposalId: id,
      payloadHash: hash,
      reasonCode: status,
      data: { executionId: `seeded-${k}` },
      at: ranAt,
    });
  }
  if (status === 'expired' || status === 'stale') {
    const actor = status === 'expired' ? EXPIRY_ACTOR : RECHECK_ACTOR;
    sink.trail.push({
      type: status === 'expired' ? 'proposal.expired' : 'proposal.stale',
      actor,
      proposalId: id,
      payloadHash: hash,
      reasonCode: status === 'expired' ? 'expired' : 'stock_changed',
      data: status === 'stale' ? { reason: reason!, gate: 'live' } : {},
      at: decidedAt,
    });
  }
  return line;
}
