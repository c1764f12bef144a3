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
import { EXPIRY_ACTOR, expiryReason, RECHECK_ACTOR } from '@/lib/decisions/transitions';
import { auditHashInput } from '@/lib/events/append';
import type { AuditEventType } from '@/lib/events/registry';
import { claimOf, OPEN_STATUSES } from '@/lib/gates/claims';
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
  >`select tenant_id, agent_key_id, agent_name, action, contract_version, payload, raw_candidate,
      gates::text as gates, routing, routing::text as routing_text, risk, facts::text as facts, evidence,
      flags::text as flags
    from proposals where id = ${proposalId}`;
  if (!row) throw new Error('the template proposal is missing');
  const deciders = await sql<{ user_id: string }[]>`
    select user_id from memberships
    where tenant_id = ${row.tenant_id} and role in ('approver', 'admin') order by user_id`;
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
  'id',
  'tenant_id',
  'request_id',
  'agent_key_id',
  'agent_name',
  'action',
  'contract_version',
  'status',
  'payload',
  'payload_hash',
  'raw_candidate',
  'gates',
  'routing',
  'risk',
  'resource_key',
  'facts',
  'evidence',
  'flags',
  'status_reason',
  'created_at',
  'expires_at',
  'decided_at',
  'escalated_at',
  'updated_at',
] as const;
const DECISION_COLUMNS = [
  'id',
  'tenant_id',
  'proposal_id',
  'user_id',
  'decision',
  'payload_hash',
  'reason',
  'created_at',
] as const;
const COMMAND_COLUMNS = [
  'id',
  'tenant_id',
  'proposal_id',
  'scope',
  'kid',
  'jws',
  'idempotency_key',
  'expires_at',
  'consumed_at',
  'created_at',
] as const;
const EXECUTION_COLUMNS = [
  'id',
  'tenant_id',
  'proposal_id',
  'command_id',
  'status',
  'attempts',
  'receipt',
  'error_code',
  'created_at',
  'updated_at',
] as const;
const EVENT_COLUMNS = [
  'tenant_id',
  'seq',
  'type',
  'actor_type',
  'actor_id',
  'proposal_id',
  'payload_hash',
  'reason_code',
  'contract_version',
  'data',
  'occurred_at',
  'prev_hash',
  'hash',
] as const;

/** Proposals per COPY batch: bounds the memory of one step whatever its size. */
const BATCH = 20_000;
/** Seeded history goes back from here, by default one proposal every 30 s (1,000,000 span about a year). */
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
 * the rest ended over the past, one every `spacingMs` (default 30 s), older than anything already seeded. One
 * transaction, holding the tenant's audit head: concurrent appends (the worker) wait and then continue the seeded
 * chain.
 */
export async function growHistory(
  sql: postgres.Sql,
  template: SeedTemplate,
  options: { target: number; pending: number; scale: number; spacingMs?: number; now?: Date },
): Promise<GrowthStep> {
  const began = Date.now();
  const now = options.now ?? new Date();
  const run = randomBytes(3).toString('hex');
  const { tenantId } = template;
  return sql.begin(async (tx) => {
    const chain = await lockChain(tx, tenantId);
    const [counted] = await tx<{ total: number; seeded: number }[]>`
      select count(*)::int as total, count(*) filter (where request_id like 'seed-%')::int as seeded
      from proposals where tenant_id = ${tenantId}`;
    const add = Math.max(0, options.target - (counted?.total ?? 0));
    // Seeded proposals are numbered across steps so each step's history is older than the last.
    const first = counted?.seeded ?? 0;
    const events = await seedProposals(tx, template, chain, add, (i, sink) =>
      seedOne(
        template,
        { k: first + i, pending: i < options.pending, now, run, scale: options.scale, spacingMs: options.spacingMs },
        sink,
      ),
    );
    await tx`update audit_heads set seq = ${chain.seq}, hash = ${chain.prevHash} where tenant_id = ${tenantId}`;
    // The seeded proposals bypassed the transitions: the tenant's claims rows start again from the sum from scratch
    // (lib/gates/claims.ts).
    await tx`delete from resource_claims where tenant_id = ${tenantId}`;
    return {
      proposals: add,
      pending: Math.min(add, options.pending),
      events,
      seconds: Math.round((Date.now() - began) / 100) / 10,
    };
  });
}

export type PendingStep = { pending: number; hot: number; events: number; claimsRows: number; seconds: number };

/**
 * Adds pending proposals to the template's tenant until `target` of them wait over many resources
 * (the scaled SKUs or orders, one in 20 routed to an admin) and `hot.count` on the one resource
 * `hot.resource` (a scaled index), each with its audit event. One transaction, holding the
 * tenant's audit head; the tenant's claims rows are set to the sums from scratch in it, so each
 * resource's row is exact when the transaction commits (checked afterwards with claimsDrift).
 */
export async function growPending(
  sql: postgres.Sql,
  template: SeedTemplate,
  options: { target: number; hot: { resource: number; count: number }; scale: number; now?: Date },
): Promise<PendingStep> {
  const began = Date.now();
  const now = options.now ?? new Date();
  const run = randomBytes(3).toString('hex');
  const { tenantId } = template;
  const hotKey = resourceKeyOf(template, scaledIds(options.hot.resource));
  return sql.begin(async (tx) => {
    const chain = await lockChain(tx, tenantId);
    const [counted] = await tx<{ pending: number; hot: number; seeded: number }[]>`
      select count(*)::int as pending, count(*) filter (where resource_key = ${hotKey})::int as hot,
        count(*) filter (where request_id like 'seedp-%')::int as seeded
      from proposals where tenant_id = ${tenantId} and status = 'pending_approval'`;
    const { pending = 0, hot = 0, seeded = 0 } = counted ?? {};
    const spread = Math.max(0, options.target - (pending - hot));
    const hotAdded = Math.max(0, options.hot.count - hot);
    const base = { pending: true, now, run, scale: options.scale, prefix: 'seedp' };
    const events = await seedProposals(tx, template, chain, spread + hotAdded, (i, sink) => {
      const k = seeded + i;
      return i < spread
        ? seedOne(template, { ...base, k, ...(k % 20 === 0 ? { role: 'admin' as const } : {}) }, sink)
        : seedOne(template, { ...base, k, resource: options.hot.resource }, sink);
    });
    await tx`update audit_heads set seq = ${chain.seq}, hash = ${chain.prevHash} where tenant_id = ${tenantId}`;
    const claimsRows = await setClaimsFromScratch(tx, tenantId);
    return { pending: spread, hot: hotAdded, events, claimsRows, seconds: Math.round((Date.now() - began) / 100) / 10 };
  });
}

/** The resource key a seeded proposal on `ids` acts on, as intake derives it for the template's action. */
function resourceKeyOf(template: SeedTemplate, ids: ReturnType<typeof scaledIds>): string {
  return 'sku' in template.payload.args ? `sku:${ids.sku}` : `order:${ids.order}`;
}

/**
 * The tenant's claims rows (lib/gates/claims.ts) set to what its open proposals claim, summed here
 * with the product's own claimOf: the seeded proposals bypassed the transitions that keep them.
 */
async function setClaimsFromScratch(tx: postgres.TransactionSql, tenantId: string): Promise<number> {
  const open = await tx<{ action: string; resource_key: string; args: Record<string, unknown> }[]>`
    select action, resource_key, payload -> 'args' as args from proposals
    where tenant_id = ${tenantId} and resource_key is not null and status::text = any(${[...OPEN_STATUSES]}::text[])`;
  const sums = new Map<string, { count: number; total: number }>();
  for (const row of open) {
    const sum = sums.get(row.resource_key) ?? { count: 0, total: 0 };
    sum.count += 1;
    sum.total += claimOf({ action: row.action, payload: { args: row.args } as NormalizedPayload });
    sums.set(row.resource_key, sum);
  }
  await tx`delete from resource_claims where tenant_id = ${tenantId}`;
  const keys = [...sums.keys()];
  if (keys.length > 0) {
    await tx`insert into resource_claims (tenant_id, resource_key, open_count, open_total)
      select ${tenantId}, key, count, total
      from unnest(
        ${keys}::text[],
        ${keys.map((key) => sums.get(key)!.count)}::int[],
        ${keys.map((key) => String(sums.get(key)!.total))}::numeric[]
      ) as t(key, count, total)`;
  }
  return keys.length;
}

/** The tenant's audit chain head, locked until the seeding transaction ends: the seeded events continue it. */
type Chain = { tenantId: string; seq: number; prevHash: string };

async function lockChain(tx: postgres.TransactionSql, tenantId: string): Promise<Chain> {
  const [head] = await tx<
    { seq: string; hash: string }[]
  >`select seq::text, hash from audit_heads where tenant_id = ${tenantId} for update`;
  if (!head) throw new Error('the tenant has no audit head yet');
  return { tenantId, seq: Number(head.seq), prevHash: head.hash };
}

/**
 * COPYs `count` proposals made by `seed(i, sink)` (i from 0), in batches, then what they left behind
 * (decisions, commands, executions) and their audit events chained on from `chain`, which moves
 * with them. Answers how many events were written.
 */
async function seedProposals(
  tx: postgres.TransactionSql,
  template: SeedTemplate,
  chain: Chain,
  count: number,
  seed: (i: number, sink: Sink) => string,
): Promise<number> {
  let events = 0;
  for (let start = 0; start < count; start += BATCH) {
    const sink: Sink = { decisions: [], commands: [], executions: [], trail: [] };
    // Lazy: rows are made (and hashed) while PostgreSQL takes the previous chunk, on the other core.
    function* proposals() {
      for (let i = start; i < Math.min(count, start + BATCH); i++) yield seed(i, sink);
    }
    await copyInto(tx, 'proposals', PROPOSAL_COLUMNS, proposals());
    await copyInto(tx, 'decisions', DECISION_COLUMNS, sink.decisions);
    await copyInto(tx, 'commands', COMMAND_COLUMNS, sink.commands);
    await copyInto(tx, 'executions', EXECUTION_COLUMNS, sink.executions);
    function* lines() {
      for (const event of sink.trail) {
        chain.seq += 1;
        const row = {
          tenantId: chain.tenantId,
          seq: chain.seq,
          type: event.type,
          actorType: event.actor.type,
          actorId: event.actor.id,
          proposalId: event.proposalId,
          payloadHash: event.payloadHash,
          reasonCode: event.reasonCode,
          contractVersion: template.contractVersion,
          data: event.data,
          occurredAt: event.at.toISOString(),
          prevHash: chain.prevHash,
        };
        const hash = payloadHash(auditHashInput(row));
        chain.prevHash = hash;
        events += 1;
        yield copyLine([
          row.tenantId,
          row.seq,
          row.type,
          row.actorType,
          row.actorId,
          row.proposalId,
          row.payloadHash,
          row.reasonCode,
          row.contractVersion,
          JSON.stringify(row.data),
          row.occurredAt,
          row.prevHash,
          hash,
        ]);
      }
    }
    await copyInto(tx, 'audit_events', EVENT_COLUMNS, lines());
  }
  return events;
}

type Sink = { decisions: string[]; commands: string[]; executions: string[]; trail: Event[] };

/**
 * Which seeded proposal: `k` numbers it (its time and, unless `resource` names one, its scaled
 * SKU or order); `role` routes it to that role instead of the template's.
 */
type SeedAt = {
  k: number;
  pending: boolean;
  now: Date;
  run: string;
  scale: number;
  prefix?: string;
  resource?: number;
  role?: 'admin';
  spacingMs?: number;
};

/**
 * One seeded proposal `k` as a COPY line; what its outcome left behind (decision, command, execution, events) goes to
 * `sink`.
 */
function seedOne(template: SeedTemplate, at: SeedAt, sink: Sink): string {
  const { k, pending, now } = at;
  const ids = scaledIds(at.resource ?? (k % at.scale) + 1);
  const id = newId('prp');
  const payload: NormalizedPayload = {
    ...template.payload,
    args: {
      ...template.payload.args,
      ...('sku' in template.payload.args ? { sku: ids.sku } : {}),
      ...('orderId' in template.payload.args ? { orderId: ids.order } : {}),
    },
    evidenceRefs: [ids.evidence],
  };
  const hash = payloadHash(payload);
  const requestId = `${at.prefix ?? 'seed'}-${at.run}-${k}`;
  const raw = JSON.stringify({
    ...template.rawCandidate,
    requestId,
    args: payload.args,
    evidenceRefs: payload.evidenceRefs,
  });
  const resourceKey = resourceKeyOf(template, ids);
  const evidence = JSON.stringify(
    template.evidence.map((item) => ({ ...item, id: ids.evidence, text: `Customer asked about order ${ids.order}.` })),
  );
  // Pending: the newest, within the last hour, expiring a week after (no expiry or reminder during
  // the bench) and marked escalated so the worker does not notify about the seeded proposals.
  const createdAt = pending
    ? new Date(now.getTime() - 60_000 - (k % 3_600) * 1_000)
    : new Date(now.getTime() - 3_600_000 - (k + 1) * (at.spacingMs ?? SPACING_MS));
  const expiresAt = new Date(createdAt.getTime() + (pending ? 7 * 86_400_000 : 86_400_000));
  const status: ProposalStatus = pending ? 'pending_approval' : endedStatus(k);
  const decidedAt = pending
    ? null
    : status === 'expired'
      ? expiresAt
      : new Date(createdAt.getTime() + 60_000 + (k % 120) * 60_000);
  const decider = template.deciders[k % template.deciders.length]!;
  const reason =
    status === 'rejected'
      ? 'Not needed: the customer cancelled.'
      : status === 'expired'
        ? expiryReason({ expiresAt })
        : status === 'stale'
          ? 'The stock changed before anyone decided.'
          : null;
  const line = copyLine([
    id,
    template.tenantId,
    requestId,
    template.agentKeyId,
    template.agentName,
    template.action,
    template.contractVersion,
    status,
    JSON.stringify(payload),
    hash,
    raw,
    template.gates,
    at.role ? JSON.stringify({ ...template.routing, role: at.role }) : template.routingText,
    template.risk,
    resourceKey,
    template.facts,
    evidence,
    template.flags,
    reason,
    createdAt.toISOString(),
    expiresAt.toISOString(),
    decidedAt?.toISOString() ?? null,
    pending ? now.toISOString() : null,
    (decidedAt ?? now).toISOString(),
  ]);
  const routing = template.routing;
  sink.trail.push({
    type: 'proposal.created',
    actor: { type: 'agent', id: template.agentKeyId },
    proposalId: id,
    payloadHash: hash,
    reasonCode: routing.outcome,
    data: {
      action: template.action,
      agent: template.agentName,
      rule: routing.rule,
      policyVersion: routing.policyVersion,
      parent: null,
    },
    at: createdAt,
  });
  if (!decidedAt) return line;
  if (status === 'succeeded' || status === 'failed' || status === 'rejected') {
    const decision = status === 'rejected' ? 'reject' : 'approve';
    sink.decisions.push(
      copyLine([newId('dec'), template.tenantId, id, decider, decision, hash, reason, decidedAt.toISOString()]),
    );
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
      copyLine([
        commandId,
        template.tenantId,
        id,
        'inventory',
        'seeded',
        'seeded.not.signed',
        newId('idem'),
        new Date(decidedAt.getTime() + 300_000).toISOString(),
        ranAt.toISOString(),
        decidedAt.toISOString(),
      ]),
    );
    const receipt = status === 'succeeded' ? JSON.stringify({ id: `hold_seed_${k}` }) : null;
    sink.executions.push(
      copyLine([
        newId('exe'),
        template.tenantId,
        id,
        commandId,
        status,
        1,
        receipt,
        status === 'failed' ? 'insufficient_stock' : null,
        ranAt.toISOString(),
        ranAt.toISOString(),
      ]),
    );
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
