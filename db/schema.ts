import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { Facts, ProposalDrift, ProposalFlag } from './proposal-flags';

export type { Facts } from './proposal-flags';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const roleEnum = pgEnum('role', ['viewer', 'approver', 'admin']);

export const proposalStatusEnum = pgEnum('proposal_status', [
  'pending_approval',
  'approved',
  'executing',
  'succeeded',
  'failed',
  'outcome_unknown',
  'rejected',
  'expired',
  'stale',
  'cancelled',
]);

export const decisionEnum = pgEnum('decision_kind', ['approve', 'reject']);
export const actorTypeEnum = pgEnum('actor_type', ['user', 'agent', 'system']);

export const tenants = pgTable('tenants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** A reminder goes out this long before a pending proposal expires; 0 turns reminders off. */
  reminderLeadMinutes: integer('reminder_lead_minutes').notNull().default(60),
  /** Admins hear of a proposal nobody decided within this long; 0 turns escalation off. */
  escalateAfterMinutes: integer('escalate_after_minutes').notNull().default(120),
  /** Notifications carry the summary with argument values (amounts, ids) only when this is on. */
  notifyWithValues: boolean('notify_with_values').notNull().default(false),
  /**
   * The emergency stop: while set, approved commands wait and no expiry is counted (lib/commands/executions-pause.ts).
   */
  executionsPausedAt: at('executions_paused_at'),
  executionsPausedBy: text('executions_paused_by'),
  executionsPauseReason: text('executions_pause_reason'),
  /** Every approval in the tenant must be signed with the approver's passkey (docs/passkeys.md). */
  requirePasskeys: boolean('require_passkeys').notNull().default(false),
  /**
   * The team's evidence resolver (docs/actions.md): cited evidence refs are `POST`ed there; none reads them from the
   * systems of record.
   */
  evidenceResolver: text('evidence_resolver'),
  /** The rubber-stamp alarm (lib/oversight/alarm.ts): at least this many decisions in the window; 0 turns it off. */
  oversightMinDecisions: integer('oversight_min_decisions').notNull().default(20),
  /** …an approval rate at or above this percentage; 0 turns it off. */
  oversightApprovalRatePercent: integer('oversight_approval_rate_percent').notNull().default(98),
  /** …and a median dwell (first opened to decided) under this many seconds; 0 turns it off. */
  oversightMedianDwellSeconds: integer('oversight_median_dwell_seconds').notNull().default(5),
  createdAt: createdAt(),
});

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    /** Null for people who only sign in through OIDC. */
    passwordHash: text('password_hash'),
    /** When the person proved the address (a code sent to it); null until then. */
    emailVerifiedAt: at('email_verified_at'),
    /**
     * The tenant whose invitation link created the account (null for accounts an operator made):
     * until the address is proven, the account may belong to this tenant only.
     */
    createdByTenantId: text('created_by_tenant_id'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_email_key').on(t.email), check('users_email_lower', sql`${t.email} = lower(${t.email})`)],
);

export const memberships = pgTable(
  'memberships',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    role: roleEnum('role').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

export const agentKeys = pgTable(
  'agent_keys',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    agentName: text('agent_name').notNull(),
    /** SHA-256 of the key; the key itself is shown once and never stored. */
    keyHash: text('key_hash').notNull(),
    /** The first characters of the key, to recognise it in lists. */
    keyPrefix: text('key_prefix').notNull(),
    allowedActions: text('allowed_actions').array().notNull(),
    /** Action-specific grants read by Authority, e.g. {"warehouses": ["north"]}. */
    grants: jsonb('grants').$type<Record<string, string[]>>().notNull().default({}),
    /** The person the agent acts for: they may not approve its proposals. */
    onBehalfOfUserId: text('on_behalf_of_user_id').references(() => users.id),
    createdAt: createdAt(),
    revokedAt: at('revoked_at'),
    lastUsedAt: at('last_used_at'),
    /** A key replaced by rotation keeps working until this moment (the overlap), then refuses like a revoked one. */
    expiresAt: at('expires_at'),
    /** The key that replaced this one by rotation. */
    replacedById: text('replaced_by_id'),
  },
  (t) => [uniqueIndex('agent_keys_hash_key').on(t.keyHash), index('agent_keys_tenant_idx').on(t.tenantId, t.agentName)],
);

export const policies = pgTable(
  'policies',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    action: text('action').notNull(),
    version: integer('version').notNull(),
    /** Ordered routing rules; the first that matches decides. */
    rules: jsonb('rules').notNull(),
    /** How long its proposals wait for a decision before they expire. */
    expiryHours: integer('expiry_hours').notNull().default(24),
    /** The publisher's change note (1–500 characters, as sent); null for built-in and seeded versions. */
    note: text('note'),
    createdBy: text('created_by').references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('policies_version_key').on(t.tenantId, t.action, t.version)],
);

/**
 * The normalized payload of docs/design.md §5: the candidate after validation (defaults applied),
 * exactly what is hashed, signed into the command and executed. The one type of `proposals.payload`.
 */
export type NormalizedPayload = {
  action: string;
  contractVersion: number;
  tenantId: string;
  args: Record<string, unknown>;
  evidenceRefs: string[];
};
export type EvidenceSnapshot = { id: string; kind: string; text: string };
export type GateResult = { gate: string; ok: boolean; code?: string; detail?: string };
/**
 * What an aggregate bound summed at intake: this proposal's `field` plus the same field of the
 * earlier counted proposals of the same action on the same resource within the window.
 */
export type RoutingAggregate = {
  field: string;
  windowHours: number;
  priorCount: number;
  priorSum: number;
  total: number;
};
export type Routing = {
  rule: string;
  policyVersion: number;
  outcome: 'auto_approve' | 'needs_approval' | 'deny';
  approvals: number;
  role: 'approver' | 'admin';
  /** Present when a rule with an aggregate bound was evaluated (absent on older rows). */
  aggregate?: RoutingAggregate;
  /** Every approval must be signed with the approver's passkey (a rule's `"passkey": true`). */
  passkey?: true;
};

export const proposals = pgTable(
  'proposals',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    /** The agent's idempotency key; null for revisions made by an operator. */
    requestId: text('request_id'),
    agentKeyId: text('agent_key_id').references(() => agentKeys.id),
    agentName: text('agent_name').notNull(),
    action: text('action').notNull(),
    contractVersion: integer('contract_version').notNull(),
    status: proposalStatusEnum('status').notNull(),
    /** The normalized payload of docs/design.md §5, exactly what is hashed. */
    payload: jsonb('payload').$type<NormalizedPayload>().notNull(),
    payloadHash: text('payload_hash').notNull(),
    /** The request body as received, byte for byte (untrusted). */
    rawCandidate: text('raw_candidate').notNull(),
    gates: jsonb('gates').$type<GateResult[]>().notNull(),
    routing: jsonb('routing').$type<Routing>().notNull(),
    risk: text('risk').notNull().default('low'),
    /** The resource the proposal acts on (`order:ord_1842`); open proposals on it are serialized. */
    resourceKey: text('resource_key'),
    /**
     * What it claims of its resource while open: its action's claim argument at intake (a refund's
     * amount), summed over the resource's open proposals; null when the action claims nothing.
     */
    claimAmount: numeric('claim_amount'),
    /** The version of the tenant's action definition it was gated by; null for a shipped action. */
    definitionVersion: integer('definition_version'),
    /** Facts Meaning read from the system of record at intake (shown, never hashed). */
    facts: jsonb('facts').$type<Facts>().notNull().default({}),
    /** The cited evidence as the system of record returned it: untrusted text, shown inertly. */
    evidence: jsonb('evidence').$type<EvidenceSnapshot[]>().notNull().default([]),
    /** What the gates noticed at intake (suspicious evidence, hidden characters, near a bound, first use). */
    flags: jsonb('flags').$type<ProposalFlag[]>().notNull().default([]),
    /** Set by the background re-check when the resource moved but the proposal still holds. */
    drift: jsonb('drift').$type<ProposalDrift>(),
    parentId: text('parent_id'),
    repairOf: text('repair_of'),
    initiatedByUserId: text('initiated_by_user_id').references(() => users.id),
    /** Why the operator edited it (their own words, 1–500 characters): set on a revision only. */
    revisionReason: text('revision_reason'),
    statusReason: text('status_reason'),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
    decidedAt: at('decided_at'),
    extendedAt: at('extended_at'),
    /** When the reminder before expiry was written (once per proposal). */
    remindedAt: at('reminded_at'),
    /** When admins were told nobody decided it in time (once per proposal). */
    escalatedAt: at('escalated_at'),
    /** The standing grant that approved it (no person decided it). */
    grantId: text('grant_id'),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('proposals_request_key').on(t.agentKeyId, t.requestId),
    index('proposals_resource_idx').on(t.tenantId, t.resourceKey, t.status),
    /** The Proposals list searched by order or SKU, and "other proposals on this resource", newest first. */
    index('proposals_resource_recent_idx').on(t.tenantId, t.resourceKey, t.createdAt, t.id),
    /** The Proposals list searched by agent, newest first. */
    index('proposals_agent_recent_idx').on(t.tenantId, t.agentName, t.createdAt, t.id),
    index('proposals_queue_idx').on(t.tenantId, t.status, t.expiresAt, t.id),
    /** The queue sorted newest or oldest first (a B-tree reads both ways). */
    index('proposals_queue_created_idx').on(t.tenantId, t.status, t.createdAt, t.id),
    index('proposals_recent_idx').on(t.tenantId, t.createdAt, t.id),
    /** A definition's plan replays the action's recent proposals; History filters by action. */
    index('proposals_action_recent_idx').on(t.tenantId, t.action, t.createdAt, t.id),
    index('proposals_parent_idx').on(t.parentId),
    /** The history's Decisions view: decided or ended proposals, newest decision first. */
    index('proposals_decided_idx').on(t.tenantId, t.decidedAt, t.id).where(sql`${t.decidedAt} is not null`),
    /**
     * The re-check sweep: whether a proposal on the resource moved on since a pending one was checked, one probe
     * (lib/jobs/recheck-open.ts).
     */
    index('proposals_moved_on_idx')
      .on(t.tenantId, t.resourceKey, t.updatedAt)
      .where(sql`${t.status} <> 'pending_approval'`),
    /**
     * The queue's agent filter: the agents with something pending, one probe per agent (lib/proposals/status-page.ts).
     */
    index('proposals_pending_agent_idx').on(t.tenantId, t.agentName).where(sql`${t.status} = 'pending_approval'`),
    /**
     * The revisions a person made, whose descendants the queue leaves to someone else
     * (lib/proposals/viewer-relation.ts).
     */
    index('proposals_initiated_idx').on(t.initiatedByUserId).where(sql`${t.initiatedByUserId} is not null`),
  ],
);

export const intakeAttempts = pgTable(
  'intake_attempts',
  {
    id: text('id').primaryKey(),
    /** Null when the key was missing or unknown: there is no tenant to charge it to. */
    tenantId: text('tenant_id').references(() => tenants.id),
    agentKeyId: text('agent_key_id').references(() => agentKeys.id),
    agentName: text('agent_name'),
    requestId: text('request_id'),
    repairOf: text('repair_of'),
    /** The first request of a repair chain (its own requestId when it repairs nothing). */
    rootRequestId: text('root_request_id'),
    action: text('action'),
    contractVersion: integer('contract_version'),
    outcome: text('outcome').notNull(),
    httpStatus: integer('http_status').notNull(),
    errorKind: text('error_kind'),
    errorCode: text('error_code'),
    /** Field names and issue codes only, never received values. */
    issues: jsonb('issues').$type<{ field: string; code: string }[]>(),
    /** The explanation the agent received, for operators reviewing exhausted repair chains. */
    message: text('message'),
    /** The body as received (untrusted; shown only to members of the tenant). */
    rawCandidate: text('raw_candidate'),
    /** What shadow contract versions said about the same candidate. */
    shadow: jsonb('shadow').$type<{ version: number; accepted: boolean; codes: string[] }[]>(),
    proposalId: text('proposal_id'),
    durationMs: integer('duration_ms'),
    createdAt: createdAt(),
  },
  (t) => [
    index('intake_attempts_tenant_idx').on(t.tenantId, t.createdAt, t.id),
    index('intake_attempts_request_idx').on(t.agentKeyId, t.requestId, t.createdAt),
    index('intake_attempts_root_idx').on(t.agentKeyId, t.rootRequestId),
    /** Contract measurements: per action and version over a time window (issue 12). */
    index('intake_attempts_contract_idx').on(t.tenantId, t.action, t.contractVersion, t.createdAt),
  ],
);

/** Why an approval stopped counting (docs/design.md §6). */
export const withdrawalEnum = pgEnum('approval_withdrawal', ['role_changed', 'removed']);

export const decisions = pgTable(
  'decisions',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    proposalId: text('proposal_id')
      .notNull()
      .references(() => proposals.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    decision: decisionEnum('decision').notNull(),
    payloadHash: text('payload_hash').notNull(),
    reason: text('reason'),
    createdAt: createdAt(),
    /**
     * An approval stops counting when its approver's role drops below the rule's, or they leave the
     * tenant, while the proposal waits (lib/decisions/quorum.ts): when, why, and the role they were
     * given (null when removed). A withdrawn approval never counts again, even after a re-promotion.
     */
    withdrawnAt: at('withdrawn_at'),
    withdrawnReason: withdrawalEnum('withdrawn_reason'),
    withdrawnRole: roleEnum('withdrawn_role'),
  },
  (t) => [
    uniqueIndex('decisions_once_per_person').on(t.proposalId, t.userId),
    /** Oversight figures: a tenant's decisions in a window (lib/oversight/figures.ts). */
    index('decisions_tenant_recent_idx').on(t.tenantId, t.createdAt),
  ],
);

export const viewChannelEnum = pgEnum('view_channel', ['notification', 'queue', 'page', 'api']);

/**
 * When the server first served a waiting proposal to a person (its page, the queue's one-proposal
 * re-check, the operator API's read), and what brought them: once per person and proposal. Only the
 * server writes it (docs/oversight.md).
 */
export const proposalViews = pgTable(
  'proposal_views',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    proposalId: text('proposal_id')
      .notNull()
      .references(() => proposals.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    firstSeenAt: at('first_seen_at').notNull().defaultNow(),
    channel: viewChannelEnum('channel').notNull(),
  },
  (t) => [primaryKey({ columns: [t.proposalId, t.userId] })],
);

export type ViewChannel = (typeof viewChannelEnum.enumValues)[number];

/**
 * One rubber-stamp notice per approver and window (lib/oversight/alarm.ts): the claim row that makes it once under
 * concurrency.
 */
export const oversightAlarms = pgTable(
  'oversight_alarms',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    /** The first day (UTC) of the window the figures were computed over. */
    windowStart: at('window_start').notNull(),
    windowDays: integer('window_days').notNull(),
    decisions: integer('decisions').notNull(),
    approvalRate: numeric('approval_rate').notNull(),
    medianDwellMs: integer('median_dwell_ms').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId, t.windowStart, t.windowDays] })],
);

/** Why a standing grant ended before its expiry (lib/grants/end.ts). */
export const grantEndEnum = pgEnum('grant_end', ['revoked', 'role_changed', 'granter_removed', 'policy_changed']);

/**
 * A standing grant (docs/grants.md): a person who approved a proposal lets Countersign approve
 * further ones like it (same action, agent key and rule; optionally the same resource) for a while,
 * up to a count and, for money, a total. It only narrows: coverage is checked under the resource
 * lock with this row locked, so the caps hold exactly (lib/grants/cover.ts).
 */
export const grants = pgTable(
  'grants',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    /** The approved proposal the grant was made from (one grant per proposal). */
    proposalId: text('proposal_id')
      .notNull()
      .references(() => proposals.id),
    grantedBy: text('granted_by')
      .notNull()
      .references(() => users.id),
    /** The granter's role when granting: any change of it ends the grant. */
    granterRole: roleEnum('granter_role').notNull(),
    action: text('action').notNull(),
    agentKeyId: text('agent_key_id')
      .notNull()
      .references(() => agentKeys.id),
    agentName: text('agent_name').notNull(),
    /** Set when the grant covers only the source proposal's resource. */
    resourceKey: text('resource_key'),
    /** The routing rule and policy version the source proposal was routed by; a covered one must match both. */
    rule: text('rule').notNull(),
    policyVersion: integer('policy_version').notNull(),
    /**
     * For an action that moves money: the argument holding the amount (minor units) and the currency covered proposals
     * must have.
     */
    moneyField: text('money_field'),
    currency: text('currency'),
    maxCount: integer('max_count').notNull(),
    maxTotalMinor: bigint('max_total_minor', { mode: 'number' }),
    usedCount: integer('used_count').notNull().default(0),
    usedTotalMinor: bigint('used_total_minor', { mode: 'number' }).notNull().default(0),
    reason: text('reason').notNull(),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
    endedAt: at('ended_at'),
    endReason: grantEndEnum('end_reason'),
    /**
     * Who ended it (a revoker, the admin who changed a role, the publisher of a policy); null for Countersign itself.
     */
    endedBy: text('ended_by'),
    endNote: text('end_note'),
  },
  (t) => [
    uniqueIndex('grants_proposal_key').on(t.proposalId),
    /** Intake's look-up: the tenant's live grants for one action and agent key. */
    index('grants_cover_idx').on(t.tenantId, t.action, t.agentKeyId).where(sql`${t.endedAt} is null`),
    /** The list, newest first. */
    index('grants_recent_idx').on(t.tenantId, t.createdAt, t.id),
    index('grants_granter_idx').on(t.tenantId, t.grantedBy).where(sql`${t.endedAt} is null`),
  ],
);

export type Grant = typeof grants.$inferSelect;

export const commands = pgTable(
  'commands',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    proposalId: text('proposal_id')
      .notNull()
      .references(() => proposals.id),
    scope: text('scope').notNull(),
    kid: text('kid').notNull(),
    jws: text('jws').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    expiresAt: at('expires_at').notNull(),
    consumedAt: at('consumed_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('commands_one_per_proposal').on(t.proposalId),
    uniqueIndex('commands_idempotency_key').on(t.idempotencyKey),
  ],
);

export const executions = pgTable(
  'executions',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    proposalId: text('proposal_id')
      .notNull()
      .references(() => proposals.id),
    commandId: text('command_id')
      .notNull()
      .references(() => commands.id),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    receipt: jsonb('receipt'),
    errorCode: text('error_code'),
    nextCheckAt: at('next_check_at'),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('executions_command_key').on(t.commandId),
    index('executions_check_idx').on(t.status, t.nextCheckAt),
    /** A proposal's execution (rejecting an approved proposal, renewing its command, History). */
    index('executions_proposal_idx').on(t.proposalId),
  ],
);

/**
 * What a state change records of an event: the columns of `audit_pending`, and of `audit_events` beside its seq and
 * hashes.
 */
const auditEventFields = () => ({
  type: text('type').notNull(),
  actorType: actorTypeEnum('actor_type').notNull(),
  actorId: text('actor_id').notNull(),
  /**
   * The actor's display name when the event was written (hashed); null on events written before names were recorded.
   */
  actorName: text('actor_name'),
  proposalId: text('proposal_id'),
  payloadHash: text('payload_hash'),
  reasonCode: text('reason_code'),
  contractVersion: integer('contract_version'),
  data: jsonb('data').$type<Record<string, string | number | boolean | null>>().notNull(),
  occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'string' }).notNull(),
});

/**
 * Audit events recorded by committed state changes and not yet linked into their tenant's chain
 * (docs/evidence.md, "How events are chained"): every field of an event but `seq`, `prevHash` and
 * `hash`. `id` comes from a sequence when the row is written, so it orders the rows of one tenant
 * by when their transactions wrote them; the chainer moves them into `audit_events` in that order.
 * A trigger refuses UPDATE and TRUNCATE, and DELETE outside the chainer's transaction.
 */
export const auditPending = pgTable(
  'audit_pending',
  {
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    ...auditEventFields(),
  },
  // One index serves the writer's insert, the chainer's ordered batch and "anything pending?".
  (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
);

/** One row per tenant: the head of its audit hash chain, locked while the chainer links rows to it. */
export const auditHeads = pgTable('audit_heads', {
  tenantId: text('tenant_id')
    .primaryKey()
    .references(() => tenants.id),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  hash: text('hash').notNull(),
});

/** Append-only (a trigger refuses UPDATE and DELETE) and hash-chained per tenant. */
export const auditEvents = pgTable(
  'audit_events',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    ...auditEventFields(),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.seq] }),
    index('audit_events_proposal_idx').on(t.proposalId, t.seq),
    /** The history's event-type and person filters, newest first (docs/design.md §8). */
    index('audit_events_type_idx').on(t.tenantId, t.type, t.seq),
    index('audit_events_actor_idx').on(t.tenantId, t.actorType, t.actorId, t.seq),
  ],
);

/**
 * Each tenant's audit events as an RFC 6962 Merkle tree (docs/evidence.md, "The log format"): the
 * hash (hex) of every complete subtree, the 2^level leaves from index·2^level on; leaf i is the
 * event with seq i+1. Written by lib/audit/tlog/store.ts as the chain grows, so a root or a proof
 * reads O(log n) rows. Insert-only: a trigger refuses UPDATE, DELETE and TRUNCATE.
 */
export const auditTreeNodes = pgTable(
  'audit_tree_nodes',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    level: integer('level').notNull(),
    index: bigint('index', { mode: 'number' }).notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.level, t.index] }),
    check(
      'audit_tree_nodes_shape',
      sql`${t.level} between 0 and 62 and ${t.index} >= 0 and ${t.hash} ~ '^[0-9a-f]{64}$'`,
    ),
  ],
);

export const outbox = pgTable(
  'outbox',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    topic: text('topic').notNull(),
    proposalId: text('proposal_id'),
    body: jsonb('body').notNull(),
    attempts: integer('attempts').notNull().default(0),
    availableAt: at('available_at').notNull().defaultNow(),
    deliveredAt: at('delivered_at'),
    deadAt: at('dead_at'),
    lastError: text('last_error'),
    createdAt: createdAt(),
  },
  (t) => [index('outbox_pending_idx').on(t.availableAt).where(sql`${t.deliveredAt} is null and ${t.deadAt} is null`)],
);

/** UNLOGGED (drizzle/0016_rate_limit_unlogged.sql): counters skip the write-ahead log; a crash only resets them. */
export const rateLimitBuckets = pgTable(
  'rate_limit_buckets',
  {
    key: text('key').notNull(),
    windowStart: at('window_start').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);

/**
 * One signed-in browser session. The session cookie (a next-auth JWT) names its row; the row is
 * what makes it valid: sign-out, removal, a password change or "sign out everywhere" end it at once,
 * and it dies at `expiresAt` (absolute) or after the idle timeout however often the cookie renews.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    createdAt: createdAt(),
    lastSeenAt: at('last_seen_at').notNull().defaultNow(),
    expiresAt: at('expires_at').notNull(),
    endedAt: at('ended_at'),
    endReason: text('end_reason'),
  },
  (t) => [index('sessions_user_idx').on(t.userId).where(sql`${t.endedAt} is null`)],
);

/**
 * Failed sign-ins counted per key (an account at an address, an account, an address), shared by
 * every replica: the basis for the delays and locks of the sign-in throttle.
 */
export const signInThrottles = pgTable('sign_in_throttles', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  lastFailureAt: at('last_failure_at').notNull(),
  lockedUntil: at('locked_until'),
});

/**
 * Where an account has signed in with its password before (lib/auth/throttle.ts): from such an
 * address only the account's own count there can hold it back, so failures sprayed from its
 * address or at its account from elsewhere cannot lock its owner out. Forgotten after
 * KNOWN_ADDRESS_MS (90 days, lib/auth/known-addresses.ts) without a sign-in from there, when the
 * password changes, and with the account.
 */
export const signInKnownAddresses = pgTable(
  'sign_in_known_addresses',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    address: text('address').notNull(),
    lastSignedInAt: at('last_signed_in_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.address] })],
);

/**
 * One-time codes that prove a person's address (sent to it over SMTP): only a hash is stored; a
 * code expires, allows a few wrong tries, and works once. A new code replaces the pending one.
 */
export const emailCodes = pgTable(
  'email_codes',
  {
    id: text('id').primaryKey(),
    /** The address the code was sent to: a code proves an address, whether or not it has an account yet. */
    email: text('email').notNull(),
    codeHash: text('code_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
    createdAt: createdAt(),
  },
  (t) => [index('email_codes_email_idx').on(t.email, t.createdAt)],
);

export type Tenant = typeof tenants.$inferSelect;
export type User = typeof users.$inferSelect;
export type Membership = typeof memberships.$inferSelect;
export type AgentKey = typeof agentKeys.$inferSelect;
export type Proposal = typeof proposals.$inferSelect;
export type NewProposal = typeof proposals.$inferInsert;
export type Decision = typeof decisions.$inferSelect;
export type AuditEvent = typeof auditEvents.$inferSelect;
export type Session = typeof sessions.$inferSelect;
export type SignInThrottle = typeof signInThrottles.$inferSelect;
export type Role = (typeof roleEnum.enumValues)[number];
/**
 * What the open proposals on one resource claim, kept in the same transaction as every status
 * change that opens or closes a claim (lib/gates/claims.ts). Its row is also the resource's lock:
 * intake takes it FOR UPDATE, so open proposals are counted against live state exactly once.
 */
export const resourceClaims = pgTable(
  'resource_claims',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    resourceKey: text('resource_key').notNull(),
    /** How many proposals on the resource are in OPEN_STATUSES. */
    openCount: integer('open_count').notNull().default(0),
    /** The sum of their actions' claim field (e.g. amountMinor), 0 when the action has none. */
    openTotal: numeric('open_total').notNull().default('0'),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.resourceKey] })],
);

export type ProposalStatus = (typeof proposalStatusEnum.enumValues)[number];

export const channelKindEnum = pgEnum('channel_kind', ['webhook', 'slack', 'email']);
export type ChannelKind = (typeof channelKindEnum.enumValues)[number];

/** Where a tenant's notifications go (docs/design.md §9): a signed webhook, a Slack incoming webhook, or email. */
export const notificationChannels = pgTable(
  'notification_channels',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    kind: channelKindEnum('kind').notNull(),
    /** A URL (webhook, slack) or an email address that receives a copy of every message. */
    target: text('target').notNull(),
    /** The Standard Webhooks secret (`whsec_…`) a webhook is signed with; null for slack and email. */
    secret: text('secret'),
    /** The notification events this channel receives. */
    events: text('events').array().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /**
     * More than this many messages to the channel within a minute, and the rest of that minute's
     * wait and go as one digest when it is up (lib/notifications/digest.ts); 0 sends each on its own.
     */
    digestThreshold: integer('digest_threshold').notNull().default(5),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [index('notification_channels_tenant_idx').on(t.tenantId, t.createdAt)],
);

export type NotificationChannel = typeof notificationChannels.$inferSelect;

export const deliveryStatusEnum = pgEnum('delivery_status', ['pending', 'delivered', 'dead']);
export type DeliveryStatus = (typeof deliveryStatusEnum.enumValues)[number];

/**
 * One notification to one channel. Its id is the message id a receiver de-duplicates on
 * (`webhook-id`, the email's Message-ID): it stays the same across retries.
 */
export const notificationDeliveries = pgTable(
  'notification_deliveries',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    channelId: text('channel_id')
      .notNull()
      .references(() => notificationChannels.id),
    /** The outbox row it was fanned out from; null for a channel test. */
    outboxId: text('outbox_id'),
    event: text('event').notNull(),
    proposalId: text('proposal_id'),
    /** The message's facts as they stood when it was written (no argument values unless the tenant opted in). */
    data: jsonb('data').$type<Record<string, string | number | boolean | null>>().notNull(),
    /** The digest this message waits in (and is sent with); null when it goes on its own, and on a digest itself. */
    digestId: text('digest_id'),
    /** Email only: who it goes to besides the channel's own address. */
    recipients: text('recipients').array().notNull().default(sql`'{}'::text[]`),
    status: deliveryStatusEnum('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    availableAt: at('available_at').notNull().defaultNow(),
    lastError: text('last_error'),
    /** The receiver's HTTP status (or SMTP reply code) on the last attempt. */
    lastStatus: integer('last_status'),
    /** How long the last attempt took. */
    latencyMs: integer('latency_ms'),
    createdAt: createdAt(),
    deliveredAt: at('delivered_at'),
    deadAt: at('dead_at'),
  },
  (t) => [
    uniqueIndex('notification_deliveries_once').on(t.outboxId, t.channelId),
    index('notification_deliveries_due_idx').on(t.availableAt).where(sql`${t.status} = 'pending'`),
    index('notification_deliveries_channel_idx').on(t.channelId, t.createdAt),
    index('notification_deliveries_tenant_idx').on(t.tenantId, t.createdAt),
    index('notification_deliveries_digest_idx').on(t.digestId).where(sql`${t.digestId} is not null`),
  ],
);

export type NotificationDelivery = typeof notificationDeliveries.$inferSelect;

/** How far each tenant's audit chain has been re-verified by the watch job, and where it broke. */
export const auditChainChecks = pgTable('audit_chain_checks', {
  tenantId: text('tenant_id')
    .primaryKey()
    .references(() => tenants.id),
  verifiedSeq: bigint('verified_seq', { mode: 'number' }).notNull(),
  verifiedHash: text('verified_hash').notNull(),
  brokenAtSeq: bigint('broken_at_seq', { mode: 'number' }),
  /** Why it broke there (lib/audit/verify.ts BreakReason). */
  brokenReason: text('broken_reason'),
  /** The head reached by the last complete pass from genesis: "verified through #N at <time>". */
  verifiedThroughSeq: bigint('verified_through_seq', { mode: 'number' }),
  verifiedThroughAt: at('verified_through_at'),
  checkedAt: at('checked_at').notNull().defaultNow(),
});

/**
 * A one-time invitation into a tenant: the link carries a random token, only its SHA-256 is kept;
 * it works once, until `expiresAt`.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    email: text('email').notNull(),
    name: text('name').notNull(),
    role: roleEnum('role').notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: at('expires_at').notNull(),
    acceptedAt: at('accepted_at'),
    createdByUserId: text('created_by_user_id').references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('invitations_token_key').on(t.tokenHash),
    index('invitations_tenant_idx').on(t.tenantId, t.email),
  ],
);

/**
 * A tenant's own status for one contract version of an action, overriding the module's default
 * (lib/actions): shadow → current → supported (with an optional sunset) → retired.
 */
export const contractRollouts = pgTable(
  'contract_rollouts',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    action: text('action').notNull(),
    version: integer('version').notNull(),
    status: text('status').notNull(),
    sunsetAt: at('sunset_at'),
    updatedByUserId: text('updated_by_user_id').references(() => users.id),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.action, t.version] })],
);

/**
 * Each version of a tenant's declared actions (docs/actions.md): the definition document as
 * published, never changed after. The newest version of a name is the current one. Insert-only: a
 * trigger refuses UPDATE, DELETE and TRUNCATE, and the application's role may only read and add.
 */
export const actionDefinitions = pgTable(
  'action_definitions',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    name: text('name').notNull(),
    version: integer('version').notNull(),
    document: jsonb('document').$type<Record<string, unknown>>().notNull(),
    /** `sha256:` + hex of the document's RFC 8785 form (lib/payload-hash.ts). */
    documentHash: text('document_hash').notNull(),
    /** Why it was published (1–500 characters). */
    note: text('note').notNull(),
    /** A user id, or a system actor's name (`cli`). */
    publishedBy: text('published_by').notNull(),
    publishedAt: at('published_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.name, t.version] }),
    check(
      'action_definitions_shape',
      sql`${t.version} >= 1 and ${t.documentHash} ~ '^sha256:[0-9a-f]{64}$' and length(${t.note}) between 1 and 500`,
    ),
  ],
);

export type ActionDefinitionRow = typeof actionDefinitions.$inferSelect;

/**
 * A person's WebAuthn credential (docs/passkeys.md): people are not tenant-scoped, so neither are
 * their passkeys. The public key is the COSE key the authenticator registered; `counter` is its
 * signature counter as last seen (a counter that goes backwards is refused).
 */
export const passkeys = pgTable(
  'passkeys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    /** The credential id, base64url, as the authenticator names it. */
    credentialId: text('credential_id').notNull(),
    /** The COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    name: text('name').notNull(),
    transports: jsonb('transports').$type<string[]>().notNull().default([]),
    lastUsedAt: at('last_used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('passkeys_credential_key').on(t.credentialId), index('passkeys_user_idx').on(t.userId)],
);

export type Passkey = typeof passkeys.$inferSelect;

/**
 * A WebAuthn challenge the server issued, kept until it is used once or expires: a registration's
 * random challenge, or a decision's, which is the hash of the statement kept beside it.
 */
export const passkeyChallenges = pgTable(
  'passkey_challenges',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    purpose: text('purpose').$type<'register' | 'decide'>().notNull(),
    /** The challenge, base64url. */
    challenge: text('challenge').notNull(),
    /** A decision's statement (docs/passkeys.md), null for a registration. */
    statement: jsonb('statement').$type<Record<string, unknown>>(),
    expiresAt: at('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('passkey_challenges_challenge_key').on(t.challenge),
    index('passkey_challenges_user_idx').on(t.userId, t.expiresAt),
  ],
);
